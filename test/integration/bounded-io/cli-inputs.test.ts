import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { jsonOf, runCliBounded } from './bounded-cli';

/**
 * `--executors` and `--workflow` that are not regular files (issue 12): refused at once with a typed
 * code, before anything is created. Before the fix a FIFO hung the CLI (its open waited for a writer).
 */
const tempDir = useTempDirs();

it('a FIFO, a directory, /dev/zero or a symlink to it as --executors or --workflow is refused at once', { timeout: 120_000 }, async () => {
  const h = new ForkHarness(tempDir('citadel-bounded-inputs-'));
  await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
  const fifo = path.join(h.base, 'inputs.fifo');
  execFileSync('mkfifo', [fifo]);
  const directory = path.join(h.base, 'inputs.d');
  mkdirSync(directory);
  const zeroLink = path.join(h.base, 'zero.json');
  symlinkSync('/dev/zero', zeroLink);
  const cli = (args: string[]) => runCliBounded(args, { env: h.env(), cwd: h.base, timeoutMs: 10_000, scratch: h.base });

  for (const input of [fifo, directory, '/dev/zero', zeroLink]) {
    const runs = [
      { code: 'EXECUTOR_FILE_UNREADABLE', run: await cli(['executors', 'validate', input, '--json']) },
      { code: 'EXECUTOR_FILE_UNREADABLE', run: await cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--executors', input, '--json']) },
      { code: 'WORKFLOW_FILE_UNREADABLE', run: await cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', input, '--json']) },
    ];
    for (const { code, run } of runs) {
      expect(run.timedOut, `${input} hung`).toBe(false);
      expect(run.ms, input).toBeLessThan(8_000);
      expect(jsonOf(run), input).toMatchObject({ error: { code, details: { reason: 'not_regular_file' } } });
    }
  }
  const forks = path.join(h.root, 'forks');
  expect(existsSync(forks) ? readdirSync(forks).filter((name) => !name.startsWith('.')) : []).toEqual([]);
});
