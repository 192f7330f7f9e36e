/**
 * Review 30 F8: `citadel init` reads a repository's CI workflows for a hint of its test command; a
 * crafted workflow must not make that read quadratic or unbounded (it runs in Mission Control's
 * process too). Each line is read once, and files, bytes and commands are capped.
 */
import { describe, expect, it } from 'vitest';
import { CI_LIMITS, ciCommands } from '../../../../main/setup/propose/ci-commands';
import type { RepositoryFiles } from '../../../../main/setup/propose/repository-files';

/** The repository's tracked files as `init` hands them over (a real repository in the init integration tests). */
function filesOf(contents: Readonly<Record<string, string>>): RepositoryFiles {
  const tracked = Object.keys(contents);
  return {
    root: '/repo',
    tracked,
    has: (file) => tracked.includes(file),
    hasDirectory: (dir) => tracked.some((file) => file.startsWith(`${dir}/`)),
    read: (file) => Promise.resolve(contents[file] ?? null),
  };
}

/** `depth` `run: |` lines, each indented under the one before: each a command of the first block. */
const nested = (depth: number): string => Array.from({ length: depth }, (_, n) => `${' '.repeat(n)}run: |`).join('\n');

describe('CI commands', () => {
  it('one-line and block runs, as before', async () => {
    const workflow = 'jobs:\n  test:\n    steps:\n      - run: npm ci\n      - run: "npm test"\n      - run: |\n          npm run lint\n\n          npm run build\n      - name: done\n';
    expect(await ciCommands(filesOf({ '.github/workflows/ci.yml': workflow, 'README.md': 'run: no' }))).toEqual([
      { file: '.github/workflows/ci.yml', command: 'npm ci' },
      { file: '.github/workflows/ci.yml', command: 'npm test' },
      { file: '.github/workflows/ci.yml', command: 'npm run lint' },
      { file: '.github/workflows/ci.yml', command: 'npm run build' },
    ]);
  });

  it('a block is read once: its nested `run:` lines are its text, not blocks read again (n - 1 commands, not n²/2)', async () => {
    const commands = await ciCommands(filesOf({ '.github/workflows/ci.yml': nested(30) }));
    expect(commands).toHaveLength(29);
  });

  it('a 1 MiB crafted workflow, and many of them, give at most the capped commands, quickly', async () => {
    const line = (n: number) => `${' '.repeat(n % 2000)}run: |`;
    let text = '';
    for (let n = 0; text.length < 1024 * 1024 - 4096; n++) text += `${line(n)}\n`;
    const contents = Object.fromEntries(Array.from({ length: CI_LIMITS.files + 10 }, (_, n) => [`.github/workflows/w${n}.yml`, text]));
    const started = performance.now();
    const commands = await ciCommands(filesOf(contents));
    expect(commands).toHaveLength(CI_LIMITS.commands);
    const many = await ciCommands(filesOf(Object.fromEntries(Array.from({ length: CI_LIMITS.files + 10 }, (_, n) => [`.github/workflows/w${n}.yml`, 'steps:\n  - run: make test\n']))));
    expect(new Set(many.map((entry) => entry.file)).size).toBe(CI_LIMITS.files);
    // A sanity bound only: the quadratic reading took about ten seconds on such a file.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('no more than the byte budget is read across files', async () => {
    const big = `steps:\n  - run: make test\n${'#'.repeat(1024 * 1024 - 100)}\n`;
    const contents = Object.fromEntries(Array.from({ length: 8 }, (_, n) => [`.github/workflows/w${n}.yml`, big]));
    const files = new Set((await ciCommands(filesOf(contents))).map((entry) => entry.file));
    expect(files.size).toBe(Math.floor(CI_LIMITS.bytes / big.length));
  });
});
