import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const DEMO_BUGGY_SUM = 'export function sum(a, b) {\n  return a - b;\n}\n';
export const DEMO_FIXED_SUM = 'export function sum(a, b) {\n  return a + b;\n}\n';
/** Plausible, and wrong: it passes for sum(3, 0) but not for sum(2, 3). */
export const DEMO_WRONG_SUM = 'export function sum(a, b) {\n  return Math.abs(a - b);\n}\n';

const SUM_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { sum } from '../src/sum.js';",
  '',
  "test('sum adds two numbers', () => {",
  '  assert.equal(sum(2, 3), 5);',
  '  assert.equal(sum(3, 0), 3);',
  '});',
  '',
].join('\n');

export const DEMO_WORKFLOW = {
  schema_version: 1,
  steps: [
    { id: 'reproduce', instruction: 'Run `node --test test/sum.test.js` and read the failure.' },
    { id: 'fix', instruction: 'Fix src/sum.js. Do not touch the tests.' },
  ],
  verifier: { command: 'node', args: ['--test', 'test/sum.test.js'], timeout_seconds: 120 },
  protected_paths: ['test/**', 'package.json'],
};

/** A scratch repository with one small failing test, committed, plus its workflow file beside it. */
export async function createDemoRepository(dir: string): Promise<{ repo: string; workflowFile: string }> {
  const repo = path.join(dir, 'sum-repo');
  await mkdir(path.join(repo, 'src'), { recursive: true });
  await mkdir(path.join(repo, 'test'), { recursive: true });
  await writeFile(path.join(repo, 'package.json'), '{ "name": "sum-demo", "type": "module", "private": true }\n');
  await writeFile(path.join(repo, 'src', 'sum.js'), DEMO_BUGGY_SUM);
  await writeFile(path.join(repo, 'test', 'sum.test.js'), SUM_TEST);
  await writeFile(path.join(repo, 'README.md'), '# sum demo\n\n`sum` subtracts. It should add.\n');
  const workflowFile = path.join(dir, 'workflow.json');
  await writeFile(workflowFile, `${JSON.stringify(DEMO_WORKFLOW, null, 2)}\n`);
  const env = { ...process.env, GIT_AUTHOR_NAME: 'Citadel demo', GIT_AUTHOR_EMAIL: 'demo@citadel.local', GIT_COMMITTER_NAME: 'Citadel demo', GIT_COMMITTER_EMAIL: 'demo@citadel.local' };
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'sum: initial version (with a bug)']]) {
    await run('git', args, { cwd: repo, env });
  }
  return { repo, workflowFile };
}
