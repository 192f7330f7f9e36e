/**
 * What setup left is what the verifier gets (issue 13): the clean spares exactly the ignored paths
 * present after setup; anything added under them is removed, anything changed or removed refuses
 * the tree, and ignored files created elsewhere are cleaned as before. Real git repositories.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareVerificationTree } from '../../../main/git/verification-tree';
import { ensureBaseRepository, ensureBranchRepository, type BranchRepository } from '../../../main/git/branch-repository';
import { cleanExclusions, snapshotKeptPaths } from '../../../main/git/kept-paths';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

/** A branch repository of a project that ignores node_modules/ and *.log, with "setup" output in place. */
async function setUpBranch(): Promise<{ repo: BranchRepository; result: { commit: string; tree: string } }> {
  const base = tempDir('citadel-kept-');
  const operator = path.join(base, 'operator');
  mkdirSync(operator);
  writeFileSync(path.join(operator, '.gitignore'), 'node_modules/\n*.log\n');
  writeFileSync(path.join(operator, 'index.js'), 'module.exports = 1;\n');
  git(operator, 'init', '-q', '-b', 'main');
  git(operator, 'add', '-A');
  git(operator, 'commit', '-q', '-m', 'initial');
  const head = git(operator, 'rev-parse', 'HEAD');
  await ensureBaseRepository(operator, path.join(base, 'base.git'), head);
  const repo: BranchRepository = { gitDir: path.join(base, 'branch.git'), workTree: path.join(base, 'worktree') };
  await ensureBranchRepository(path.join(base, 'base.git'), repo, 'citadel/test/branch');
  // What an install leaves: a package, a bin link, a file with special characters in its name.
  mkdirSync(path.join(repo.workTree, 'node_modules', 'dep'), { recursive: true });
  mkdirSync(path.join(repo.workTree, 'node_modules', '.bin'));
  writeFileSync(path.join(repo.workTree, 'node_modules', 'dep', 'index.js'), 'module.exports = 2;\n');
  symlinkSync('../dep/index.js', path.join(repo.workTree, 'node_modules', '.bin', 'dep'));
  writeFileSync(path.join(repo.workTree, 'setup [1].log'), 'installed\n');
  return { repo, result: { commit: head, tree: git(repo.workTree, `--git-dir=${repo.gitDir}`, 'rev-parse', 'HEAD^{tree}') } };
}

describe('kept paths', () => {
  it('the snapshot lists the ignored roots and fingerprints everything under them', async () => {
    const { repo } = await setUpBranch();
    const kept = await snapshotKeptPaths(repo);
    expect(kept.roots).toEqual(['node_modules/', 'setup [1].log']);
    expect(Object.keys(kept.entries).sort()).toEqual(['node_modules', 'node_modules/.bin', 'node_modules/.bin/dep', 'node_modules/dep', 'node_modules/dep/index.js', 'setup [1].log']);
    expect(cleanExclusions(kept)).toEqual(['-e', '/node_modules/', '-e', '/setup\\ \\[1\\].log']);
    // Left out: what another step restores itself.
    expect((await snapshotKeptPaths(repo, ['setup [1].log'])).roots).toEqual(['node_modules/']);
  });

  it('an unchanged kept set survives the clean; an ignored file made after setup does not', async () => {
    const { repo, result } = await setUpBranch();
    const kept = await snapshotKeptPaths(repo);
    writeFileSync(path.join(repo.workTree, 'agent.log'), 'later\n');
    expect(await prepareVerificationTree(repo, result, kept)).toEqual({ ok: true });
    expect(existsSync(path.join(repo.workTree, 'node_modules', 'dep', 'index.js'))).toBe(true);
    expect(existsSync(path.join(repo.workTree, 'setup [1].log'))).toBe(true);
    expect(existsSync(path.join(repo.workTree, 'agent.log'))).toBe(false);
    // Control: without the kept set, the clean removes setup's output too (as before issue 13).
    expect(await prepareVerificationTree(repo, result)).toEqual({ ok: true });
    expect(existsSync(path.join(repo.workTree, 'node_modules'))).toBe(false);
  });

  it('a file added under a kept root is removed, not kept', async () => {
    const { repo, result } = await setUpBranch();
    const kept = await snapshotKeptPaths(repo);
    writeFileSync(path.join(repo.workTree, 'node_modules', 'dep', 'planted.js'), 'evil\n');
    mkdirSync(path.join(repo.workTree, 'node_modules', 'planted-dir'));
    writeFileSync(path.join(repo.workTree, 'node_modules', 'planted-dir', 'x.js'), 'evil\n');
    expect(await prepareVerificationTree(repo, result, kept)).toEqual({ ok: true });
    expect(existsSync(path.join(repo.workTree, 'node_modules', 'dep', 'planted.js'))).toBe(false);
    expect(existsSync(path.join(repo.workTree, 'node_modules', 'planted-dir'))).toBe(false);
  });

  it('a kept file changed (even with its mtime put back), replaced, relinked or removed refuses the tree', async () => {
    const cases: Record<string, (worktree: string) => void> = {
      'changed, mtime restored': (w) => {
        const file = path.join(w, 'node_modules', 'dep', 'index.js');
        const { atime, mtime } = statSync(file);
        writeFileSync(file, 'module.exports = 3;\n');
        utimesSync(file, atime, mtime);
      },
      replaced: (w) => {
        rmSync(path.join(w, 'node_modules', 'dep', 'index.js'));
        writeFileSync(path.join(w, 'node_modules', 'dep', 'index.js'), 'module.exports = 2;\n');
      },
      relinked: (w) => {
        rmSync(path.join(w, 'node_modules', '.bin', 'dep'));
        symlinkSync('/etc/passwd', path.join(w, 'node_modules', '.bin', 'dep'));
      },
      removed: (w) => rmSync(path.join(w, 'setup [1].log')),
    };
    const expected: Record<string, string[]> = {
      'changed, mtime restored': ['node_modules/dep/index.js'],
      replaced: ['node_modules/dep/index.js'],
      relinked: ['node_modules/.bin/dep'],
      removed: ['setup [1].log'],
    };
    for (const [name, tamper] of Object.entries(cases)) {
      const { repo, result } = await setUpBranch();
      const kept = await snapshotKeptPaths(repo);
      // Control: untouched, the same tree passes.
      expect(await prepareVerificationTree(repo, result, kept), name).toEqual({ ok: true });
      tamper(repo.workTree);
      expect(await prepareVerificationTree(repo, result, kept), name).toEqual({ ok: false, problems: [{ kind: 'kept_paths', entries: expected[name] }] });
    }
  });
});
