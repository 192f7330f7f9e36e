/**
 * Issue 30 item 2, Mission Control's side: with no workflow named, the editor, the preview and the
 * start all use the repository's own `.citadel/workflow.json` and name it (one rule, in the
 * orchestrator's resolveWorkflow); an edited one stays edited from it (protected); the
 * `proposeWorkflow` channel answers `citadel init`'s proposal and writes nothing.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../shared/digest';
import { ContractV1Schema } from '../../../shared/fork/contract';
import { createFork } from '../../../main/orchestrator/create-fork';
import { ForkHarness } from '../../support/fork-harness';
import { serviceOver } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const REPO_WORKFLOW = {
  schema_version: 2,
  steps: [{ id: 'implement', instruction: 'Make the change.' }],
  verifier: { command: 'node', args: ['--test', 'test/sum.test.js'], timeout_seconds: 60 },
  protected_paths: ['test/**'],
  setup: [],
};

function withRepositoryWorkflow(h: ForkHarness): void {
  mkdirSync(path.join(h.repo, '.citadel'));
  writeFileSync(path.join(h.repo, '.citadel', 'workflow.json'), JSON.stringify(REPO_WORKFLOW));
  h.gitIn(h.repo, 'add', '.citadel');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'workflow');
}

describe("the repository's own workflow in New Fork", () => {
  it('is what the editor loads, the preview names and the contract binds when no workflow is named', async () => {
    const h = new ForkHarness(tempDir('citadel-repo-wf-'));
    withRepositoryWorkflow(h);
    const { service, ctx } = await serviceOver(h);

    const doc = await service.handle('workflowDocument', { workflow_file: null, repo: path.join(h.repo, 'src') });
    expect(doc).toEqual({ ok: true, value: { source: 'file', document: REPO_WORKFLOW, found_in_repository: '.citadel/workflow.json' } });
    // A named file wins; an invalid repository path finds nothing (the preview reports it at its field).
    expect(await service.handle('workflowDocument', { workflow_file: h.workflowFile, repo: h.repo })).toMatchObject({ ok: true, value: { found_in_repository: null } });
    expect(await service.handle('workflowDocument', { workflow_file: null, repo: path.join(h.base, 'nowhere') })).toMatchObject({ ok: true, value: { source: 'builtin' } });
    expect(await service.handle('workflowDocument', { workflow_file: null, repo: path.relative(process.cwd(), h.repo) })).toMatchObject({ ok: true, value: { source: 'builtin' } });

    const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null } as const;
    const preview = await service.handle('previewFork', request);
    const digest = sha256Digest(JSON.stringify(REPO_WORKFLOW));
    expect(preview.ok && preview.value.workflow).toEqual({
      source: 'file',
      found_in_repository: '.citadel/workflow.json',
      steps: ['implement'],
      setup: [],
      verifier: ['node', '--test', 'test/sum.test.js'],
      repository_file: { path: '.citadel/workflow.json', digest, setup: [], verifier: ['node', '--test', 'test/sum.test.js'], protected_paths: ['test/**'], confirmed: false },
    });
    const named = await service.handle('previewFork', { ...request, workflow_file: h.workflowFile });
    expect(named.ok && named.value.workflow).toMatchObject({ source: 'file', found_in_repository: null, steps: ['reproduce', 'fix'], repository_file: null });

    const created = await createFork(ctx, { objective: 'x', executors: { kind: 'runtimes', list: 'claude,codex' }, repo: h.repo, containment: 'runtime-only', workflowConfirmed: digest });
    expect(created.workflowFoundInRepository).toBe('.citadel/workflow.json');
    const contract = ContractV1Schema.parse(h.readJson(path.join(h.forkDir(created.record.fork_id), 'contract.json')));
    expect(contract.workflow).toMatchObject({ source: 'file', file_path_in_repo: '.citadel/workflow.json' });
    expect(contract.policy.protected_paths).toEqual(['test/**', '.citadel/workflow.json', '.citadel/**']);

    // Edited in New Fork (no file named), it was edited from the repository's file, which stays protected.
    const edited = await createFork(ctx, { objective: 'x', executors: { kind: 'runtimes', list: 'claude,codex' }, repo: h.repo, containment: 'runtime-only', workflow: { ...REPO_WORKFLOW, verifier: null } });
    const editedContract = ContractV1Schema.parse(h.readJson(path.join(h.forkDir(edited.record.fork_id), 'contract.json')));
    expect(editedContract.workflow).toMatchObject({ source: 'inline', file_path_in_repo: '.citadel/workflow.json' });
    expect(editedContract.policy.protected_paths).toEqual(['test/**', '.citadel/workflow.json', '.citadel/**']);
  });

  it('a .citadel/workflow.json that is not a regular file is refused, not passed over', async () => {
    const h = new ForkHarness(tempDir('citadel-repo-wf-'));
    mkdirSync(path.join(h.repo, '.citadel'));
    symlinkSync(h.workflowFile, path.join(h.repo, '.citadel', 'workflow.json'));
    const { service } = await serviceOver(h);
    const preview = await service.handle('previewFork', { objective: 'x', repo: h.repo, executors: { kind: 'runtimes', list: 'claude' }, workflow_file: null, budget_seconds: null });
    expect(preview.ok && preview.value.fields.workflow_file.problems.map((p) => p.code)).toEqual(['WORKFLOW_FILE_INVALID']);
  });

  it('proposeWorkflow answers the proposal and writes nothing', async () => {
    const h = new ForkHarness(tempDir('citadel-repo-wf-'));
    writeFileSync(path.join(h.repo, 'package.json'), JSON.stringify({ name: 'sum', type: 'module', scripts: { test: 'node --test test/sum.test.js' } }));
    writeFileSync(path.join(h.repo, 'package-lock.json'), JSON.stringify({ name: 'sum', lockfileVersion: 3, requires: true, packages: { '': { name: 'sum' } } }));
    h.gitIn(h.repo, 'add', '-A');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'npm');
    const { service } = await serviceOver(h);
    const reply = await service.handle('proposeWorkflow', { repo: h.repo });
    expect(reply.ok && reply.value.workflow).toMatchObject({ verifier: { command: 'npm', args: ['test'] }, setup: [{ id: 'npm-ci', command: 'npm', args: ['ci'], network: 'registries' }] });
    expect(reply.ok && reply.value.findings).toContainEqual({ part: 'setup', proposal: 'npm ci', evidence: 'package-lock.json' });
    expect(existsSync(path.join(h.repo, '.citadel'))).toBe(false);
    const invalid = await service.handle('proposeWorkflow', { repo: path.join(h.base, 'nowhere') });
    expect(!invalid.ok && invalid.error.code).toBe('REPOSITORY_INVALID');
    const relative = await service.handle('proposeWorkflow', { repo: path.relative(process.cwd(), h.repo) });
    expect(!relative.ok && relative.error.code).toBe('IPC_REQUEST_INVALID');
  });
});
