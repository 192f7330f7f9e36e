import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffCheck, diffSummary, diffText, PINNED_DIFF_OPTIONS } from '../../../main/git/diff';
import { MAX_GIT_OUTPUT_BYTES, runGit } from '../../../main/git/run';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Git output as large as the files a change holds (issue 12): the patch digest is streamed (and is
 * byte-for-byte the digest of the whole patch), the readable diff and `--check`'s report are cut,
 * and any other command printing more than MAX_GIT_OUTPUT_BYTES is refused, not buffered.
 */
const tempDir = useTempDirs();
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });

/** A repository whose second commit adds `big.txt`: `lines` lines, each ending in a space (a whitespace error). */
function repoWithBigText(lines: number): string {
  const repo = tempDir('citadel-bounded-git-');
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'base');
  writeFileSync(path.join(repo, 'big.txt'), 'x'.repeat(63).concat(' \n').repeat(lines));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'big');
  return repo;
}

describe('bounded git output', () => {
  it('refuses a command that prints more than the limit as GIT_OUTPUT_TOO_LARGE', { timeout: 60_000 }, async () => {
    const repo = repoWithBigText(Math.ceil((MAX_GIT_OUTPUT_BYTES + 1) / 65));
    await expect(runGit(repo, ['show', 'HEAD:big.txt'])).rejects.toMatchObject({ code: 'GIT_OUTPUT_TOO_LARGE', details: { max_bytes: MAX_GIT_OUTPUT_BYTES } });
    // Below the limit the same verb still answers.
    expect((await runGit(repo, ['show', 'HEAD:a.txt'])).stdout.toString()).toBe('a\n');
  });

  it('streams the patch digest, cuts the readable diff and the --check report', { timeout: 60_000 }, async () => {
    const lines = 200_000; // 13 MB of text, every line a whitespace error
    const repo = repoWithBigText(lines);
    const patchArgs = ['diff', ...PINNED_DIFF_OPTIONS, '--find-renames', '--binary', '--full-index', '--unified=3', '--inter-hunk-context=0', 'HEAD~1', 'HEAD', '--'];
    const whole = execFileSync('git', patchArgs, { cwd: repo, maxBuffer: 1024 * 1024 * 1024 });
    const summary = await diffSummary(repo, 'HEAD~1', 'HEAD');
    expect(summary.diff_digest).toBe(`sha256:${createHash('sha256').update(whole).digest('hex')}`);
    expect(summary.files).toEqual([{ path: 'big.txt', previous_path: null, insertions: lines, deletions: 0 }]);

    const text = await diffText(repo, 'HEAD~1', 'HEAD', 64 * 1024);
    expect(text.truncated).toBe(true);
    expect(text.bytes).toBeGreaterThan(lines * 65);
    expect(Buffer.byteLength(text.text)).toBeLessThanOrEqual(64 * 1024);
    expect(text.text.endsWith('\n')).toBe(true);

    const check = await diffCheck(repo, 'HEAD~1', 'HEAD');
    expect(check.ok).toBe(false);
    expect(Buffer.byteLength(check.output)).toBe(8 * 1024 * 1024);
    expect(check.output_digest).toBe(`sha256:${createHash('sha256').update(check.output).digest('hex')}`);
  });
});
