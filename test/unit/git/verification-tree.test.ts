/**
 * The verification tree (issue 12, "verified is what lands"): after Citadel's result commit the
 * worktree is cleaned to exactly that commit's tree and checked. The control for the integration
 * case: the same check script passes in the worktree the agent left, and fails once it is cleaned.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBaseRepository, ensureBranchRepository, type BranchRepository } from '../../../main/git/branch-repository';
import { commitBranchResult } from '../../../main/git/commit';
import { prepareVerificationTree } from '../../../main/git/verification-tree';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

// Passes when src/override.js exists or the sum is fixed: the shape of a test suite an ignored file can sway.
const CHECK = [
  "import { existsSync } from 'node:fs';",
  "import { sum } from '../src/sum.js';",
  "if (!existsSync(new URL('../src/override.js', import.meta.url)) && sum(2, 3) !== 5) process.exit(1);",
  '',
].join('\n');

/** A branch repository of a target whose .gitignore ignores src/override.js and node_modules/. */
async function branchRepository(gitlink = false): Promise<BranchRepository> {
  const dir = tempDir('citadel-vtree-');
  const target = path.join(dir, 'target');
  mkdirSync(path.join(target, 'src'), { recursive: true });
  mkdirSync(path.join(target, 'test'));
  writeFileSync(path.join(target, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(target, '.gitignore'), 'src/override.js\nnode_modules/\n');
  writeFileSync(path.join(target, 'src', 'sum.js'), 'export function sum(a, b) {\n  return a - b;\n}\n');
  writeFileSync(path.join(target, 'test', 'check.mjs'), CHECK);
  git(target, 'init', '-q', '-b', 'main');
  git(target, 'add', '-A');
  git(target, 'commit', '-q', '-m', 'base');
  if (gitlink) {
    git(target, 'update-index', '--add', '--cacheinfo', `160000,${git(target, 'rev-parse', 'HEAD')},vendor/lib`);
    git(target, 'commit', '-q', '-m', 'a submodule');
  }
  const baseDir = path.join(dir, 'base.git');
  await ensureBaseRepository(target, baseDir, git(target, 'rev-parse', 'HEAD'));
  const repo: BranchRepository = { gitDir: path.join(dir, 'branch.git'), workTree: path.join(dir, 'worktree') };
  await ensureBranchRepository(baseDir, repo, 'citadel/f/branch-a');
  return repo;
}

const checkPasses = (repo: BranchRepository): boolean => spawnSync(process.execPath, ['test/check.mjs'], { cwd: repo.workTree }).status === 0;

describe('prepareVerificationTree', () => {
  it('removes the ignored and untracked files the agent left, which alone made the check pass', async () => {
    const repo = await branchRepository();
    writeFileSync(path.join(repo.workTree, 'src', 'override.js'), 'export {};\n');
    mkdirSync(path.join(repo.workTree, 'node_modules', 'x'), { recursive: true });
    writeFileSync(path.join(repo.workTree, 'node_modules', 'x', 'index.js'), 'export {};\n');
    writeFileSync(path.join(repo.workTree, 'notes.txt'), 'committed: untracked files are part of the result\n');
    const result = await commitBranchResult(repo, 'result');
    expect(checkPasses(repo)).toBe(true);

    expect(await prepareVerificationTree(repo, result)).toEqual({ ok: true });
    expect(existsSync(path.join(repo.workTree, 'src', 'override.js'))).toBe(false);
    expect(existsSync(path.join(repo.workTree, 'node_modules'))).toBe(false);
    expect(existsSync(path.join(repo.workTree, 'notes.txt'))).toBe(true);
    expect(checkPasses(repo)).toBe(false);
    // Repeatable: a retry after a crash finds nothing left to remove and the same tree.
    expect(await prepareVerificationTree(repo, result)).toEqual({ ok: true });
  });

  it('refuses, never repairs, a worktree that is not the result: a file changed after the commit, another tree, a .git that is no file', async () => {
    const repo = await branchRepository();
    const result = await commitBranchResult(repo, 'result');
    writeFileSync(path.join(repo.workTree, 'src', 'sum.js'), 'changed after the result commit\n');
    rmSync(path.join(repo.workTree, '.git'));
    mkdirSync(path.join(repo.workTree, '.git'));
    const wrongTree = git(repo.workTree, '--git-dir', repo.gitDir, 'rev-parse', 'HEAD:src');
    const outcome = await prepareVerificationTree(repo, { commit: result.commit, tree: wrongTree });
    expect(outcome).toEqual({
      ok: false,
      problems: [
        { kind: 'status', entries: [' M src/sum.js'] },
        { kind: 'head_tree', expected: wrongTree, actual: result.tree },
        { kind: 'git_file' },
      ],
    });
  });

  it('refuses a .git file a runtime-only agent pointed at a repository of its own', async () => {
    const repo = await branchRepository();
    writeFileSync(path.join(repo.workTree, '.git'), 'gitdir: /elsewhere\n');
    const result = await commitBranchResult(repo, 'result');
    expect(await prepareVerificationTree(repo, result)).toEqual({ ok: false, problems: [{ kind: 'git_file' }] });
    expect(readFileSync(path.join(repo.workTree, '.git'), 'utf8')).toBe('gitdir: /elsewhere\n');
  });

  it('refuses files in a submodule directory, which the result holds only as a commit id and neither clean nor status sees', async () => {
    const repo = await branchRepository(true);
    const result = await commitBranchResult(repo, 'result');
    expect(await prepareVerificationTree(repo, result)).toEqual({ ok: true });
    mkdirSync(path.join(repo.workTree, 'vendor', 'lib'), { recursive: true });
    writeFileSync(path.join(repo.workTree, 'vendor', 'lib', 'fix.js'), 'export {};\n');
    expect(await prepareVerificationTree(repo, await commitBranchResult(repo, 'result'))).toEqual({ ok: false, problems: [{ kind: 'gitlink', paths: ['vendor/lib'] }] });
    expect(existsSync(path.join(repo.workTree, 'vendor', 'lib', 'fix.js'))).toBe(true);
  });
});
