/**
 * Issue 27: `.worktreeinclude` must not copy a file from outside the repository, neither through a
 * hard link nor through a symlink swapped in after the checks. Real git repositories in temp dirs, a
 * fake `~/.ssh/id_ed25519` in a temp HOME. Each attack is first run against the check it replaced
 * (path checks, then a read by path, reimplemented here): the outside key reaches a worktree there,
 * so the scenario is a real attack; the product then refuses it.
 */
import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../shared/digest';
import { openIncludeDirectory, openIncludeFile, readIncludeSource, type IncludeDirectory } from '../../../main/workspace/include-source';
import { copyWorktreeIncludes, resolveWorktreeIncludes, storeWorktreeIncludes } from '../../../main/workspace/worktree-include';
import { includeRepository, refusalOf, write } from '../../support/include-repository';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nfake-key-of-issue-27-c41d\n-----END OPENSSH PRIVATE KEY-----\n';

/** A temp HOME holding the key: the file outside the repository the attack wants copied. */
function home(): { dir: string; key: string } {
  const dir = tempDir('wti-home-');
  const key = path.join(dir, '.ssh', 'id_ed25519');
  write(dir, '.ssh/id_ed25519', KEY);
  return { dir, key };
}

/** Replaces `file` of the checkout by a symlink to `target`. */
function swapForSymlink(root: string, file: string, target: string): void {
  rmSync(path.join(root, file), { recursive: true });
  symlinkSync(target, path.join(root, file));
}

/**
 * The read before issue 27, as the control: the folder's real path inside the repository and the
 * file not a symlink but a regular file (all by path), then `between` (the attacker's moment), then
 * a read by path. What it read is stored and copied into a fresh worktree as the product does.
 */
async function copiedByPathChecks(root: string, file: string, between: () => void = () => undefined): Promise<string> {
  const full = path.join(root, file);
  const relative = path.relative(realpathSync(root), realpathSync(path.dirname(full)));
  if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`${file} lies outside the repository`);
  const stats = lstatSync(full);
  if (stats.isSymbolicLink() || !stats.isFile()) throw new Error(`${file} is not a regular file`);
  between();
  const content = await readFile(full);
  const entries = [{ path: file, digest: sha256Digest(content), size_bytes: content.length }];
  const store = path.join(tempDir('wti-store-'), 'worktree-include');
  await storeWorktreeIncludes(store, { entries, contents: new Map([[entries[0]!.digest, content]]) });
  const worktree = tempDir('wti-worktree-');
  await copyWorktreeIncludes(store, worktree, entries);
  return readFileSync(path.join(worktree, file), 'utf8');
}

/** The file opened after its folder chain, through /proc as on Linux or, as where /proc is missing, by path. */
async function openAfter(dir: IncludeDirectory, file: string, viaProc: boolean): Promise<void> {
  try {
    const handle = await openIncludeFile({ ...dir, viaProc }, file);
    await handle.close();
  } finally {
    await dir.handle.close();
  }
}

describe('a hard link to a file outside the repository', () => {
  it('is copied by the path checks; refused (WORKTREE_INCLUDE_OUTSIDE, hard link) before anything is stored', async () => {
    const { key } = home();
    const control = includeRepository(tempDir('wti-'), '.env\n');
    rmSync(path.join(control, '.env'));
    linkSync(key, path.join(control, '.env'));
    expect(await copiedByPathChecks(control, '.env')).toBe(KEY);

    const root = includeRepository(tempDir('wti-'), '.env\nconfig/local.json\n');
    rmSync(path.join(root, '.env'));
    linkSync(key, path.join(root, '.env'));
    const error = await refusalOf(resolveWorktreeIncludes(root));
    expect(error).toMatchObject({ code: 'WORKTREE_INCLUDE_OUTSIDE', details: { path: '.env', reason: 'hard link' } });
    expect(error.message).toContain('.env is a hard link (');
    expect(error.message).not.toContain('fake-key');
  });
});

describe('a symlink swapped in between the check and the open', () => {
  it('in place of the file: copied by the path checks; refused (WORKTREE_INCLUDE_SYMLINK) on the open', async () => {
    const { key } = home();
    const control = includeRepository(tempDir('wti-'), '.env\n');
    expect(await copiedByPathChecks(control, '.env', () => swapForSymlink(control, '.env', key))).toBe(KEY);

    for (const viaProc of [true, false]) {
      const root = includeRepository(tempDir('wti-'), '.env\n');
      const dir = await openIncludeDirectory(root, '.env');
      swapForSymlink(root, '.env', key);
      expect(await refusalOf(openAfter(dir, '.env', viaProc))).toMatchObject({ code: 'WORKTREE_INCLUDE_SYMLINK', details: { path: '.env', reason: 'symlink' } });
    }
  });

  it('in place of a folder: copied by the path checks; refused whether the swap comes before the folders are opened or after', async () => {
    const { dir: outside } = home();
    write(outside, 'app/local.json', KEY);
    const swapConfig = (root: string) => (): void => {
      renameSync(path.join(root, 'config'), path.join(root, 'config.moved'));
      symlinkSync(path.join(outside, 'app'), path.join(root, 'config'));
    };
    const control = includeRepository(tempDir('wti-'), 'config/local.json\n');
    expect(await copiedByPathChecks(control, 'config/local.json', swapConfig(control))).toBe(KEY);

    const before = includeRepository(tempDir('wti-'), 'config/local.json\n');
    swapConfig(before)();
    expect(await refusalOf(readIncludeSource(before, 'config/local.json', 1024))).toMatchObject({ code: 'WORKTREE_INCLUDE_SYMLINK', details: { reason: 'symlink' } });

    // After: through /proc the folder held is the real one, moved; by path the open would follow the
    // new symlink. Either way the folder's path no longer leads to the folder held: refused.
    for (const viaProc of [true, false]) {
      const root = includeRepository(tempDir('wti-'), 'config/local.json\n');
      const dir = await openIncludeDirectory(root, 'config/local.json');
      swapConfig(root)();
      expect(await refusalOf(openAfter(dir, 'config/local.json', viaProc))).toMatchObject({ code: 'WORKTREE_INCLUDE_INVALID', details: { reason: 'changed' } });
    }
  });
});

describe('what else is refused on the descriptor', () => {
  it('a FIFO is refused as not a regular file, without hanging the open', async () => {
    const root = includeRepository(tempDir('wti-'), '*.log\n');
    execFileSync('mkfifo', [path.join(root, 'pipe.log')]);
    expect(await refusalOf(readIncludeSource(root, 'pipe.log', 1024))).toMatchObject({ code: 'WORKTREE_INCLUDE_INVALID', details: { path: 'pipe.log', reason: 'not a regular file' } });
  });

  it('a folder where a file was listed is refused; a file where a folder was, or nothing, is a change', async () => {
    const root = includeRepository(tempDir('wti-'), '*.log\n');
    mkdirSync(path.join(root, 'dir.log'));
    writeFileSync(path.join(root, 'file.log'), 'x');
    expect(await refusalOf(readIncludeSource(root, 'dir.log', 1024))).toMatchObject({ code: 'WORKTREE_INCLUDE_INVALID', details: { reason: 'not a regular file' } });
    for (const file of ['file.log/x', 'gone.log']) {
      expect(await refusalOf(readIncludeSource(root, file, 1024))).toMatchObject({ code: 'WORKTREE_INCLUDE_INVALID', details: { path: file, reason: 'changed' } });
    }
  });

  it('reads the listed file whole, from its descriptor', async () => {
    const root = includeRepository(tempDir('wti-'), null);
    expect((await readIncludeSource(root, 'config/local.json', 1024)).toString()).toBe('{"local":true}\n');
    expect(await refusalOf(readIncludeSource(root, 'config/local.json', 4))).toMatchObject({ code: 'WORKTREE_INCLUDE_TOO_LARGE' });
  });
});
