import { realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../shared/digest';
import { changedPaths, diffCheck, diffSummary } from '../../../main/git/diff';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, gitBytes, makeRepo, sha256Hex } from './git-fixture';

const tempDir = useTempDirs();

const BINARY = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0xff, 0x10, 0x00, 0x7f]);
const RENAMED_BODY = Array.from({ length: 20 }, (_, line) => `line ${line}\n`).join('');
const ODD_NAMES = ['with space.txt', 'ünïcödé ✓.txt', 'new\nline.txt', 'tab\there.txt'];

/** A base commit and a head commit that modifies, renames, adds binary and oddly named files. */
function changeSet(): { repo: string; base: string; head: string } {
  const repo = makeRepo(realpathSync(tempDir()));
  const base = commitFiles(repo, 'base', { 'old name.txt': RENAMED_BODY, 'edit.txt': 'one\ntwo\nthree\n', 'image.bin': BINARY });
  git(repo, 'mv', 'old name.txt', 'new name.txt');
  const head = commitFiles(repo, 'head', {
    'new name.txt': `${RENAMED_BODY}line 20\n`,
    'edit.txt': 'one\n2\nthree\nfour\n',
    'image.bin': Uint8Array.from([...BINARY, 0x01]),
    ...Object.fromEntries(ODD_NAMES.map((name) => [name, 'x\n'])),
  });
  return { repo, base, head };
}

describe('diffSummary', () => {
  it('counts lines per file, with renames, binary files and odd names', async () => {
    const { repo, base, head } = changeSet();
    const summary = await diffSummary(repo, base, head);

    const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : 1);
    expect([...summary.files].sort(byPath)).toEqual(
      [
        { path: 'edit.txt', previous_path: null, insertions: 2, deletions: 1 },
        { path: 'image.bin', previous_path: null, insertions: null, deletions: null },
        { path: 'new name.txt', previous_path: 'old name.txt', insertions: 1, deletions: 0 },
        ...ODD_NAMES.map((path) => ({ path, previous_path: null, insertions: 1, deletions: 0 })),
      ].sort(byPath),
    );
    expect(summary.files_changed).toBe(7);
    expect(summary.insertions).toBe(2 + 1 + ODD_NAMES.length);
    expect(summary.deletions).toBe(1);
  });

  it('digests the exact bytes of the full binary patch', async () => {
    const { repo, base, head } = changeSet();
    const patch = gitBytes(repo, 'diff', '--binary', '--full-index', '--find-renames', base, head);
    expect(patch.includes('GIT binary patch')).toBe(true);

    expect((await diffSummary(repo, base, head)).diff_digest).toBe(`sha256:${sha256Hex(patch)}`);
  });

  it('gives binary changes with equal line counts different digests', async () => {
    const repo = makeRepo(realpathSync(tempDir()));
    const base = commitFiles(repo, 'base', { 'image.bin': BINARY });
    const one = commitFiles(repo, 'one', { 'image.bin': Uint8Array.from([...BINARY, 0x01]) });
    git(repo, 'reset', '--quiet', '--hard', base);
    const two = commitFiles(repo, 'two', { 'image.bin': Uint8Array.from([...BINARY, 0x02]) });

    const [first, second] = [await diffSummary(repo, base, one), await diffSummary(repo, base, two)];
    expect(first.files).toEqual(second.files);
    expect(first.diff_digest).not.toBe(second.diff_digest);
  });

  it('does not let repository config change the counts or the digest', async () => {
    const { repo, base, head } = changeSet();
    const plain = await diffSummary(repo, base, head);
    for (const [key, value] of [
      ['color.ui', 'always'],
      ['diff.noprefix', 'true'],
      ['diff.renames', 'false'],
      ['diff.algorithm', 'patience'],
      ['diff.context', '10'],
      ['core.abbrev', '12'],
      ['diff.relative', 'true'],
    ] as const) {
      git(repo, 'config', key, value);
    }
    // The config does change what a plain `git diff` prints: colour, and no rename detection.
    expect(git(repo, 'diff', base, head)).toContain('\u001b[');
    expect(git(repo, 'diff', '--numstat', base, head)).not.toContain('=>');

    expect(await diffSummary(repo, base, head)).toEqual(plain);
  });
});

describe('changedPaths', () => {
  it('lists every touched path, both sides of a rename included', async () => {
    const { repo, base, head } = changeSet();
    expect(await changedPaths(repo, base, head)).toEqual(
      ['edit.txt', 'image.bin', 'new name.txt', 'old name.txt', ...ODD_NAMES].sort(),
    );
  });
});

describe('diffCheck', () => {
  it('passes a clean change', async () => {
    const repo = makeRepo(realpathSync(tempDir()));
    const base = git(repo, 'rev-parse', 'HEAD');
    const head = commitFiles(repo, 'clean', { 'clean.txt': 'fine\n' });

    const result = await diffCheck(repo, base, head);
    expect(result).toMatchObject({ ok: true, exit_code: 0, output: '', output_digest: sha256Digest('') });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('fails trailing whitespace and conflict markers, digesting the output', async () => {
    const repo = makeRepo(realpathSync(tempDir()));
    const base = git(repo, 'rev-parse', 'HEAD');
    const head = commitFiles(repo, 'bad', {
      'trailing.txt': 'ok\nspaces   \n',
      'conflict.txt': '<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n',
    });

    const result = await diffCheck(repo, base, head);
    expect(result.ok).toBe(false);
    expect(result.exit_code).toBe(2);
    expect(result.output).toContain('trailing.txt:2: trailing whitespace.');
    expect(result.output).toContain('conflict.txt:1: leftover conflict marker');
    expect(result.output_digest).toBe(sha256Digest(result.output));
  });
});
