// Tests run the CLI as a real child process, so it is built once, fresh, before any test.
import type { TestProject } from 'vitest/node';
import { buildCli } from '../../build/build-cli.mjs';
import { newRunTag } from './run-tag';
import { removeTagged } from './tagged-leftovers';

/**
 * Builds the CLI, and hands the tests a tag of this run's own: whatever a test leaves on the host on
 * purpose (a survivor process, a /tmp file) carries it and must be gone by the end. The teardown
 * fails the run when anything with the tag is still there (and removes it, so no next run meets it).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  await buildCli();
  const tag = newRunTag();
  project.provide('citadelTestRun', tag);
  return () => {
    const left = removeTagged(tag);
    if (left.processes.length + left.files.length > 0) {
      const processes = left.processes.map((pid) => `pid ${pid}`);
      // Vitest only prints an error thrown here ("error during close"); the exit code is what fails CI.
      process.exitCode = 1;
      throw new Error(`this test run left behind what carries its tag ${tag}: ${[...processes, ...left.files].join(', ')}`);
    }
  };
}
