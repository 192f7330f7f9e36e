import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitError, runGit } from '../../../main/git/run';
import { useTempDirs } from '../../support/temp-dir';
import { git, makeRepo } from './git-fixture';

const tempDir = useTempDirs();

describe('runGit', () => {
  it('throws a GitError carrying the args, exit code and stderr', async () => {
    const repo = makeRepo(tempDir());
    const failure = await runGit(repo, ['rev-parse', '--verify', 'no-such-ref']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitError);
    expect(failure).toMatchObject({
      code: 'GIT_FAILED',
      args: ['rev-parse', '--verify', 'no-such-ref'],
      exitCode: 128,
      details: { args: ['rev-parse', '--verify', 'no-such-ref'], exit_code: 128 },
    });
    expect((failure as GitError).stderr).toContain('Needed a single revision');
  });

  it('returns the exit code when it is one the caller accepts', async () => {
    const repo = makeRepo(tempDir());
    const run = await runGit(repo, ['rev-parse', '--verify', '--quiet', 'no-such-ref'], { okExitCodes: [0, 1] });
    expect(run.exitCode).toBe(1);
  });

  it('reports a directory that does not exist as GIT_FAILED, not a crash', async () => {
    const missing = path.join(tempDir(), 'missing');
    await expect(runGit(missing, ['status'])).rejects.toMatchObject({ code: 'GIT_FAILED', exitCode: null });
  });
});

describe('the user environment does not reach git', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it('ignores global, XDG and system config and an ambient GIT_DIR', async () => {
    const repo = makeRepo(tempDir());
    const other = makeRepo(tempDir());
    const home = realpathSync(tempDir());
    writeFileSync(path.join(home, '.gitconfig'), '[citadel]\n\tglobal = read\n');
    mkdirSync(path.join(home, 'xdg', 'git'), { recursive: true });
    writeFileSync(path.join(home, 'xdg', 'git', 'config'), '[citadel]\n\txdg = read\n');
    writeFileSync(path.join(home, 'system'), '[citadel]\n\tsystem = read\n');
    git(other, 'config', 'citadel.other', 'read');
    git(repo, 'config', 'citadel.local', 'read');
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = path.join(home, 'xdg');
    process.env.GIT_CONFIG_SYSTEM = path.join(home, 'system');
    process.env.GIT_DIR = path.join(other, '.git');

    const lookUp = async (key: string): Promise<number> =>
      (await runGit(repo, ['config', '--get', key], { okExitCodes: [0, 1] })).exitCode;
    expect(await lookUp('citadel.local')).toBe(0);
    expect(await lookUp('citadel.global')).toBe(1);
    expect(await lookUp('citadel.xdg')).toBe(1);
    expect(await lookUp('citadel.system')).toBe(1);
    expect(await lookUp('citadel.other')).toBe(1);
  });
});
