/**
 * Issue 30 item 2, `citadel init` as the operator runs it: the built CLI as a child process on real
 * git repositories. Without --write it prints what it found and why and writes nothing; --write
 * writes `.citadel/workflow.json` (its path in --json), a second --write is refused with a stable
 * code, --force replaces; a repository with nothing recognisable exits 1 with WORKFLOW_NOT_RECOGNISED.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkflowFileSchema } from '../../../shared/fork/workflow';
import { runCli } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

function repository(files: Record<string, string>): string {
  const repo = path.join(tempDir('citadel-init-cli-'), 'repo');
  mkdirSync(repo, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(repo, file), text);
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['commit', '-q', '-m', 'fixture']]) execFileSync('git', args, { cwd: repo, env });
  return repo;
}

const CARGO = { 'Cargo.toml': '[package]\nname = "p"\nversion = "0.1.0"\n', 'Cargo.lock': 'version = 3\n' };

describe('citadel init (CLI)', () => {
  it('prints each proposal with its evidence and writes nothing without --write', async () => {
    const repo = repository(CARGO);
    const run = await runCli(['init', '--repo', repo]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Cargo.lock → cargo fetch --locked');
    expect(run.stdout).toContain('Cargo.toml → cargo test');
    expect(run.stdout).toContain('Nothing written. Run again with --write');
    expect(existsSync(path.join(repo, '.citadel'))).toBe(false);
  });

  it('--write --json: one document with the written path; a second --write is refused (WORKFLOW_FILE_EXISTS, exit 1); --force replaces', async () => {
    const repo = repository(CARGO);
    const file = path.join(repo, '.citadel', 'workflow.json');
    const written = await runCli(['init', '--repo', repo, '--write', '--json']);
    expect(written.code, written.stderr).toBe(0);
    const doc = JSON.parse(written.stdout) as { path: string; replaced: boolean; workflow: unknown };
    expect(doc).toMatchObject({ path: file, replaced: false, worktree_include_path: null });
    expect(WorkflowFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')))).toEqual(doc.workflow);

    writeFileSync(file, '{}\n');
    const again = await runCli(['init', '--repo', repo, '--write', '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: 'WORKFLOW_FILE_EXISTS', details: { path: file } } });
    expect(readFileSync(file, 'utf8')).toBe('{}\n');
    const plain = await runCli(['init', '--repo', repo, '--write']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('citadel: WORKFLOW_FILE_EXISTS:');
    expect(plain.stderr).toContain('--force');

    const forced = await runCli(['init', '--repo', repo, '--write', '--force', '--json']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ path: file, replaced: true });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(doc.workflow);
  });

  it('nothing recognisable: exit 1, WORKFLOW_NOT_RECOGNISED, nothing written; not a repository: REPOSITORY_INVALID', async () => {
    const repo = repository({ 'README.md': '# notes\n' });
    const run = await runCli(['init', '--repo', repo, '--write', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'WORKFLOW_NOT_RECOGNISED', details: { findings: [] } } });
    expect(existsSync(path.join(repo, '.citadel'))).toBe(false);
    const human = await runCli(['init', '--repo', repo]);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/^citadel: WORKFLOW_NOT_RECOGNISED: no test command found in /);

    const notRepo = await runCli(['init', '--repo', tempDir('citadel-init-none-'), '--json']);
    expect(notRepo.code).toBe(1);
    expect(JSON.parse(notRepo.stdout)).toMatchObject({ error: { code: 'REPOSITORY_INVALID' } });
    const usage = await runCli(['init', '--bogus', '--json']);
    expect(usage.code).toBe(2);
    const forceAlone = await runCli(['init', '--repo', repo, '--force', '--json']);
    expect(forceAlone.code).toBe(2);
    expect(JSON.parse(forceAlone.stdout)).toMatchObject({ error: { code: 'USAGE_ERROR' } });
  });
});
