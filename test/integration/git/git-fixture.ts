import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { devNull } from 'node:os';
import path from 'node:path';
import { ensureBaseRepository, ensureBranchRepository, type BranchRepository } from '../../../main/git/branch-repository';

// Fixtures are built with the git CLI directly, independent of the code under test, and without
// the tester's own git config.
const FIXTURE_ENV = {
  PATH: process.env.PATH ?? '',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: devNull,
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.test',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.test',
};

/** Runs git in `cwd` for test setup or inspection; returns stdout with its last line break removed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: FIXTURE_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).replace(/\n$/, '');
}

/** Raw stdout bytes of a git command. */
export function gitBytes(cwd: string, ...args: string[]): Buffer {
  return execFileSync('git', args, { cwd, env: FIXTURE_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The exit code of a git command that may fail. */
export function gitStatus(cwd: string, ...args: string[]): number {
  try {
    execFileSync('git', args, { cwd, env: FIXTURE_ENV, stdio: 'ignore' });
    return 0;
  } catch (error) {
    return (error as { status: number }).status;
  }
}

export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), content);
  }
}

/** Commits `files` (all changes, in fact) in `root` and returns the new commit id. */
export function commitFiles(root: string, message: string, files: Record<string, string | Uint8Array> = {}): string {
  writeFiles(root, files);
  git(root, 'add', '--all');
  git(root, 'commit', '--quiet', '--allow-empty', '--message', message);
  return git(root, 'rev-parse', 'HEAD');
}

/** A repository on branch `main` with one commit, at the realpath of `dir`/repo. */
export function makeRepo(dir: string): string {
  const root = path.join(realpathSync(dir), 'repo');
  mkdirSync(root);
  git(root, 'init', '--quiet', '--initial-branch=main');
  commitFiles(root, 'initial', { 'README.md': 'hello\n', '.gitignore': '*.log\n' });
  return root;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Installs an executable hook that records that it ran in `marker` and then fails. */
export function installFailingHook(hooksDir: string, name: string, marker: string): void {
  mkdirSync(hooksDir, { recursive: true });
  writeFileSync(path.join(hooksDir, name), `#!/bin/sh\necho ran >> '${marker}'\nexit 1\n`, { mode: 0o755 });
}

/**
 * Citadel's own repository of one branch (main/git/branch-repository.ts), made from `repo` at its
 * HEAD under `root`: the fork's base store, then the branch's git dir and work tree.
 */
export async function makeBranchRepository(root: string, repo: string, branchId: string): Promise<{ repository: BranchRepository; base: string; baseDir: string }> {
  const base = git(repo, 'rev-parse', 'HEAD');
  const baseDir = path.join(root, 'repositories', 'base.git');
  await ensureBaseRepository(repo, baseDir, base);
  const repository = { gitDir: path.join(root, 'repositories', `${branchId}.git`), workTree: path.join(root, 'worktrees', branchId) };
  await ensureBranchRepository(baseDir, repository, `citadel/f/${branchId}`);
  return { repository, base, baseDir };
}
