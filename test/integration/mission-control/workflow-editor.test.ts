/**
 * Issue 13 item 5, the New Fork workflow editor's engine side: the editor starts from the file's
 * workflow (or the built-in one), and the workflow it sends back instead of a file is checked by the
 * shared schema at the preview's workflow field and frozen into the contract exactly as edited.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContractV1Schema } from '../../../shared/fork/contract';
import { createFork } from '../../../main/orchestrator/create-fork';
import { FIXED_SUM, ForkHarness, WORKFLOW } from '../../support/fork-harness';
import { serviceOver } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const EDITED = {
  schema_version: 2,
  steps: WORKFLOW.steps,
  verifier: { command: 'node', args: ['--test'], timeout_seconds: 90 },
  protected_paths: ['test/**', '.env'],
  setup: [{ id: 'prepare', command: 'node', args: ['--version'], timeout_seconds: 30, network: 'none' }],
};

describe('the workflow New Fork edits', () => {
  it('loads the file as a version 2 document, or the built-in one', async () => {
    const h = new ForkHarness(tempDir('citadel-wf-editor-'));
    const { service } = await serviceOver(h);
    const file = await service.handle('workflowDocument', { workflow_file: h.workflowFile });
    expect(file).toEqual({ ok: true, value: { source: 'file', document: { ...WORKFLOW, schema_version: 2, setup: [] }, found_in_repository: null } });
    const builtin = await service.handle('workflowDocument', { workflow_file: null });
    expect(builtin.ok && builtin.value).toMatchObject({ source: 'builtin', document: { verifier: null, setup: [], protected_paths: [] } });
    const missing = await service.handle('workflowDocument', { workflow_file: path.join(h.base, 'nope.json') });
    expect(!missing.ok && missing.error.code).toBe('WORKFLOW_FILE_UNREADABLE');
  });

  it('previews the edited workflow, and reports a bad one at the workflow field in words', async () => {
    const h = new ForkHarness(tempDir('citadel-wf-editor-'));
    const { service } = await serviceOver(h);
    const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null };
    const good = await service.handle('previewFork', { ...request, workflow: EDITED });
    expect(good.ok && good.value.workflow).toEqual({ source: 'inline', found_in_repository: null, steps: ['reproduce', 'fix'], setup: [{ id: 'prepare', argv: ['node', '--version'], network: 'none' }], verifier: ['node', '--test'], repository_file: null });
    expect(good.ok && good.value.fields.workflow_file.problems).toEqual([]);

    const bad = await service.handle('previewFork', { ...request, workflow: { ...EDITED, setup: [{ ...EDITED.setup[0], command: 'sh -c', timeout_seconds: 0 }] } });
    expect(bad.ok && bad.value.ready).toBe(false);
    expect(bad.ok && bad.value.fields.workflow_file.problems).toEqual([
      { code: 'WORKFLOW_INVALID', message: 'setup[0].command: "sh -c" is not a bare executable name, resolved on PATH' },
      { code: 'WORKFLOW_INVALID', message: 'setup[0].timeout_seconds: At least 1 second' },
    ]);

    // With the file it was edited from, the edited workflow is still what is previewed.
    const both = await service.handle('previewFork', { ...request, workflow: EDITED, workflow_file: h.workflowFile });
    expect(both.ok && both.value.workflow?.source).toBe('inline');
    expect(both.ok && both.value.fields.workflow_file.problems).toEqual([]);
  });

  it('freezes the edited workflow into the contract as it was edited', async () => {
    const h = new ForkHarness(tempDir('citadel-wf-editor-'));
    const { ctx } = await serviceOver(h);
    const { record } = await createFork(ctx, { objective: 'Fix the sum function', executors: { kind: 'runtimes', list: 'claude,codex' }, repo: h.repo, workflow: EDITED, containment: 'runtime-only' });
    const contract = ContractV1Schema.parse(h.readJson(path.join(h.forkDir(record.fork_id), 'contract.json')));
    expect(contract.workflow).toEqual({
      source: 'inline',
      steps: WORKFLOW.steps,
      file_path_in_repo: null,
      file_digest: null,
      setup: [{ ...EDITED.setup[0], registry_hosts: [] }],
    });
    expect(contract.verifier).toEqual({ builtin: ['git_diff_check'], command: EDITED.verifier });
    // Every new contract protects Citadel's configuration in the repository (review F2).
    expect(contract.policy.protected_paths).toEqual([...EDITED.protected_paths, '.citadel/**']);
  });

  it('keeps a workflow file inside the repository protected once its workflow is edited: an agent rewriting it fails', { timeout: 90_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-wf-editor-'));
    mkdirSync(path.join(h.repo, '.citadel'));
    const inRepo = path.join(h.repo, '.citadel', 'workflow.json');
    writeFileSync(inRepo, JSON.stringify(WORKFLOW));
    h.gitIn(h.repo, 'add', '-A');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'workflow');
    const loosened = JSON.stringify({ ...WORKFLOW, verifier: { command: 'true', args: [], timeout_seconds: 5 } });
    await h.simulate({
      claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] },
      codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }, { path: '.citadel/workflow.json', content: loosened }] },
    });
    const { ctx, service } = await serviceOver(h);
    const edited = { ...EDITED, verifier: WORKFLOW.verifier, setup: [] };
    const start = { objective: 'Fix the sum function', executors: { kind: 'runtimes', list: 'claude,codex' }, repo: h.repo, containment: 'runtime-only' } as const;
    const started = await service.handle('startFork', { ...start, workflow_file: inRepo, workflow: edited, budget_seconds: null });
    if (!started.ok) throw new Error(started.error.message);
    await service.drained();
    const forkId = started.value.fork_id;
    const contract = ContractV1Schema.parse(h.readJson(path.join(h.forkDir(forkId), 'contract.json')));
    expect(contract.workflow).toMatchObject({ source: 'inline', file_path_in_repo: '.citadel/workflow.json', file_digest: null });
    expect(contract.policy.protected_paths).toEqual([...EDITED.protected_paths, '.citadel/workflow.json', '.citadel/**']);
    const receipt = (id: string) => h.readJson<{ receipt: { status: string; failure_code: string | null } }>(h.attemptFile(forkId, id, 'execution-receipt.json')).receipt;
    expect(receipt('branch-claude')).toMatchObject({ status: 'passed', failure_code: null });
    expect(receipt('branch-codex')).toMatchObject({ status: 'failed', failure_code: 'POLICY_PROTECTED_PATH' });

    // Edited from a file outside the repository: nothing more to protect. A file that is gone is said so.
    const outside = await createFork(ctx, { ...start, workflowFile: h.workflowFile, workflow: EDITED });
    const outsideContract = ContractV1Schema.parse(h.readJson(path.join(h.forkDir(outside.record.fork_id), 'contract.json')));
    expect(outsideContract.workflow.file_path_in_repo).toBeNull();
    expect(outsideContract.policy.protected_paths).toEqual([...EDITED.protected_paths, '.citadel/**']);
    const gone = await service.handle('startFork', { ...start, workflow_file: path.join(h.repo, 'gone.json'), workflow: EDITED, budget_seconds: null });
    expect(!gone.ok && gone.error.code).toBe('WORKFLOW_FILE_UNREADABLE');
  });

  it('reports a deeply nested workflow as WORKFLOW_INVALID at the field, never an internal error', async () => {
    const h = new ForkHarness(tempDir('citadel-wf-editor-'));
    const { service } = await serviceOver(h);
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null };
    for (const workflow of [deep, { ...EDITED, setup: deep }]) {
      const preview = await service.handle('previewFork', { ...request, workflow });
      expect(preview.ok && preview.value.fields.workflow_file.problems.map((p) => p.code)).toEqual(['WORKFLOW_INVALID']);
      const started = await service.handle('startFork', { ...request, workflow, containment: 'runtime-only' });
      expect(!started.ok && started.error.code).toBe('WORKFLOW_INVALID');
    }
  });
});
