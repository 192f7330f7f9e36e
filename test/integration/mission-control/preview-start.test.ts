import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { includeListDigest } from '../../../shared/fork/include-confirmation';
import type { StartPreview } from '../../../shared/fork/start-preview';
import { ForkHarness } from '../../support/fork-harness';
import { serviceOver } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const CLAUDE = { profile_id: 'claude-a', runtime: 'claude', model: null, local_provider: null, adapter_options: {} };

async function previewOf(h: ForkHarness, overrides: Record<string, unknown>): Promise<StartPreview> {
  const { service } = await serviceOver(h);
  const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null, ...overrides };
  const reply = await service.handle('previewFork', request);
  if (!reply.ok) throw new Error(`the preview itself was refused: ${reply.error.code} ${reply.error.message}`);
  return reply.value;
}

const codes = (check: { problems: { code: string }[] }): string[] => check.problems.map((p) => p.code);

describe('the New Fork preview checks each field as start would, and reports at the field', () => {
  it('is ready for a valid form, with the repository facts and the workflow it would run', async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    const preview = await previewOf(h, { workflow_file: h.workflowFile });
    expect(preview.ready).toBe(true);
    expect(Object.values(preview.fields).flatMap((f) => f.problems)).toEqual([]);
    expect(preview.repository).toMatchObject({ head: h.gitIn(h.repo, 'rev-parse', 'HEAD'), branch: 'main', dirty: false, worktree_include: null });
    expect(preview.workflow?.source).toBe('file');
    expect(preview.executors?.profiles.map((p) => p.branch_id)).toEqual(['branch-claude', 'branch-codex']);
  });

  it('reports an empty form at its fields instead of refusing the request', async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    const preview = await previewOf(h, { objective: '  ', repo: '' });
    expect(preview.ready).toBe(false);
    expect(codes(preview.fields.objective)).toEqual(['OBJECTIVE_INVALID']);
    expect(preview.fields.repo.problems).toEqual([{ code: 'REPOSITORY_INVALID', message: 'Enter the path of the git repository the agents work on.' }]);
    expect(JSON.stringify(preview)).not.toMatch(/too_small/);
  });

  it('refuses a folder that is not a repository, a "~" path and a relative path at the repository field', async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    const notRepo = tempDir('citadel-not-a-repo-');
    const plain = await previewOf(h, { repo: notRepo });
    expect(plain.ready).toBe(false);
    expect(plain.fields.repo.problems).toEqual([{ code: 'REPOSITORY_INVALID', message: `${notRepo} is not a usable git repository (not a repository)` }]);
    expect(plain.repository).toBeNull();

    const tilde = await previewOf(h, { repo: '~/project' });
    expect(tilde.fields.repo.problems[0]?.message).toMatch(/^"~" is not expanded here; write the full path, for example \/.*\/project\.$/);
    expect((await previewOf(h, { repo: 'repo' })).fields.repo.problems[0]?.message).toBe('Write the full path of the repository (it starts with /).');
  });

  it('warns of uncommitted changes and lists the .worktreeinclude files by name and size, not yet confirmed', async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    writeFileSync(path.join(h.repo, '.gitignore'), '.env\n');
    writeFileSync(path.join(h.repo, '.worktreeinclude'), '.env\n');
    h.gitIn(h.repo, 'add', '.gitignore', '.worktreeinclude');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'include .env');
    writeFileSync(path.join(h.repo, '.env'), 'API_TOKEN=not-for-the-preview\n');
    writeFileSync(path.join(h.repo, 'scratch.txt'), 'uncommitted\n');
    const preview = await previewOf(h, {});
    expect(preview.ready).toBe(true);
    expect(preview.repository).toMatchObject({ dirty: true, worktree_include: { files: [{ path: '.env', size_bytes: 30 }], digest: includeListDigest(['.env']), confirmed: false } });
    expect(preview.fields.repo.warnings).toEqual([expect.stringMatching(/^The repository has uncommitted changes; they are not part of the fork, which starts from HEAD [0-9a-f]{12} on main\.$/)]);
    expect(JSON.stringify(preview)).not.toContain('not-for-the-preview');
  });

  it('refuses a .worktreeinclude symlink at the repository field', async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    writeFileSync(path.join(h.repo, '.gitignore'), 'link.env\n');
    writeFileSync(path.join(h.repo, '.worktreeinclude'), 'link.env\n');
    h.gitIn(h.repo, 'add', '.gitignore', '.worktreeinclude');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'include a link');
    symlinkSync('/etc/hostname', path.join(h.repo, 'link.env'));
    const preview = await previewOf(h, {});
    expect(preview.ready).toBe(false);
    expect(codes(preview.fields.repo)).toEqual(['WORKTREE_INCLUDE_SYMLINK']);
  });

  it('refuses a missing workflow file and an unknown runtime at their fields', async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    const missing = path.join(h.base, 'no-such-workflow.json');
    const preview = await previewOf(h, { workflow_file: missing, executors: { kind: 'runtimes', list: 'claude,nope' } });
    expect(preview.ready).toBe(false);
    expect(codes(preview.fields.workflow_file)).toEqual(['WORKFLOW_FILE_UNREADABLE']);
    expect(preview.fields.executors.problems).toHaveLength(1);
    expect(preview.fields.executors.problems[0]?.message).toMatch(/nope/);
    expect(preview.executors).toBeNull();
  });

  it('takes numbers out of range and reports each at its own field, with every other problem of the form', async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    const missing = path.join(h.base, 'no-such-workflow.json');
    const preview = await previewOf(h, { repo: '~/project', workflow_file: missing, budget_seconds: 0, max_attempts: -2, budget_tokens: 1.5 });
    expect(preview.ready).toBe(false);
    expect(preview.fields.budget_seconds.problems).toEqual([{ code: 'BUDGET_INVALID', message: 'The time budget must be a whole number of seconds from 1 to 604800 (7 days), not 0.' }]);
    expect(preview.fields.max_attempts.problems).toEqual([{ code: 'BUDGET_INVALID', message: 'Attempts per branch must be a whole number from 1 to 10, not -2.' }]);
    expect(preview.fields.budget_tokens.problems).toEqual([{ code: 'BUDGET_INVALID', message: 'The token budget must be a whole number of tokens from 1 to 1,000,000,000, not 1.5.' }]);
    expect(preview.fields.repo.problems[0]?.message).toMatch(/^"~" is not expanded here/);
    // With no repository to read, a workflow file is checked once there is one.
    expect(preview.fields.workflow_file.warnings[0]).toMatch(/^Checked once the repository path is valid/);
    // Plain words only: no JSON path, no command-line flag.
    expect(JSON.stringify(preview.fields)).not.toMatch(/\$\.|--[a-z]/);

    const fixedRepo = await previewOf(h, { workflow_file: missing, budget_seconds: 7 * 24 * 3600 + 1, max_attempts: 11 });
    expect(fixedRepo.fields.workflow_file.problems).toEqual([{ code: 'WORKFLOW_FILE_UNREADABLE', message: `There is no file at ${missing}.` }]);
    expect(codes(fixedRepo.fields.budget_seconds)).toEqual(['BUDGET_INVALID']);
    expect(codes(fixedRepo.fields.max_attempts)).toEqual(['BUDGET_INVALID']);
    expect(fixedRepo.fields.budget_tokens.problems).toEqual([]);

    const home = await previewOf(h, { workflow_file: '~/workflow.json' });
    expect(home.fields.workflow_file.problems[0]?.message).toMatch(/^"~" is not expanded here; write the full path/);
    expect((await previewOf(h, { workflow_file: 'workflow.json' })).fields.workflow_file.problems[0]?.message).toBe('Write the full path of the file (it starts with /).');

    const inRange = await previewOf(h, { workflow_file: h.workflowFile, budget_seconds: 600, max_attempts: 3, budget_tokens: 5000 });
    expect(inRange.ready).toBe(true);
  });

  it('says at the workflow field when the only verifier is git diff --check', async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    const builtin = await previewOf(h, {});
    expect(builtin.ready).toBe(true);
    expect(builtin.workflow).toMatchObject({ source: 'builtin', verifier: null });
    expect(builtin.fields.workflow_file.warnings).toEqual([expect.stringMatching(/^No verifier command: each branch is checked only by git diff --check/)]);
    expect((await previewOf(h, { workflow_file: h.workflowFile })).fields.workflow_file.warnings).toEqual([]);
  });

  it('names a bad profile id in words, not as a pattern', async () => {
    const { service } = await serviceOver(new ForkHarness(tempDir('citadel-preview-')));
    const reply = await service.handle('validateExecutors', { text: JSON.stringify({ schema_version: 1, executors: [{ ...CLAUDE, profile_id: 'Claude_A' }] }) });
    expect(reply.ok ? [] : reply.error.violations).toContainEqual(
      expect.objectContaining({ rule: 'pattern_mismatch', message: '"Claude_A" is not a profile id: lowercase letters, digits and "-", starting with a letter, at most 48 characters' }),
    );
  });

  it('writes nothing: no fork state and no key before Start', async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    mkdirSync(h.root, { recursive: true });
    await previewOf(h, {});
    expect(readdirSync(h.root).filter((name) => name !== 'keys')).toEqual([]);
    expect(h.gitIn(h.repo, 'branch', '--list', 'citadel/*')).toBe('');
  });
});
