import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MissionControl } from '../../../main/mission-control/service';
import { gitBranchName } from '../../../shared/fork/ids';
import { REPOSITORY_WORKFLOW_PATH } from '../../../shared/fork/workflow-proposal';
import type { StartPreview } from '../../../shared/fork/start-preview';
import { FIXED_SUM, ForkHarness, WORKFLOW } from '../../support/fork-harness';
import { serviceOver, value } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Issue 32: New Fork's preview of a follow-up is checked as its start is (the parent at the
 * repository field) and shows what it would start from: the parent branch's result commit, not
 * the repository's HEAD, and with no workflow named the parent's frozen workflow, not the
 * repository's own file.
 */

const tempDir = useTempDirs();
// The parent fork is made once for every test here, so its folder outlives each test's temp dirs.
let base = '';
let h: ForkHarness;
let service: MissionControl;
let parentId = '';

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-preview-follow-up-'));
  h = new ForkHarness(path.join(base, 'h'));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
  ({ service } = await serviceOver(h));
  const started = value(await service.handle('startFork', { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: h.workflowFile, budget_seconds: 90 }));
  parentId = started.fork_id;
  await service.drained();
  // The repository moves on after the parent (HEAD and a workflow file of its own), and has uncommitted changes.
  mkdirSync(path.join(h.repo, '.citadel'), { recursive: true });
  writeFileSync(path.join(h.repo, REPOSITORY_WORKFLOW_PATH), JSON.stringify({ ...WORKFLOW, verifier: { command: 'node', args: ['-e', 'process.exit(0)'], timeout_seconds: 60 } }));
  h.gitIn(h.repo, 'add', REPOSITORY_WORKFLOW_PATH);
  h.gitIn(h.repo, 'commit', '-q', '-m', 'a workflow of its own');
  writeFileSync(path.join(h.repo, 'scratch.txt'), 'uncommitted\n');
}, 120_000);

afterAll(async () => {
  await service.drained();
  if (base !== '') rmSync(base, { recursive: true, force: true });
});

async function previewOf(overrides: Record<string, unknown>): Promise<StartPreview> {
  const request = { objective: 'Handle the empty case', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null, ...overrides };
  return value(await service.handle('previewFork', request as never));
}

describe('the preview of a follow-up', () => {
  it('starts from the branch result, not HEAD, and runs the parent workflow when none is named', async () => {
    const result = h.gitIn(h.repo, 'rev-parse', gitBranchName(parentId, 'branch-codex'));
    const head = h.gitIn(h.repo, 'rev-parse', 'HEAD');
    expect(result).not.toBe(head);
    const preview = await previewOf({ from: { fork_id: parentId, branch_id: 'branch-codex' } });
    expect(preview.ready).toBe(true);
    expect(preview.follow_up).toEqual({ from: { fork_id: parentId, branch_id: 'branch-codex' }, base_revision: result, parent_workflow: true });
    // The parent's verifier (the harness workflow's test), not the repository's own file, and no tick asked for it.
    expect(preview.workflow?.verifier).toEqual([WORKFLOW.verifier.command, ...WORKFLOW.verifier.args]);
    expect(preview.workflow?.repository_file).toBeNull();
    expect(preview.fields.repo.warnings).toEqual(['The repository has uncommitted changes; they are not part of the fork, which starts from the result of the branch it continues.']);

    // A first fork of the same repository starts from HEAD and runs the repository's own file.
    const first = await previewOf({});
    expect(first.follow_up).toBeNull();
    expect(first.workflow?.found_in_repository).toBe(REPOSITORY_WORKFLOW_PATH);
    expect(first.workflow?.verifier).toEqual(['node', '-e', 'process.exit(0)']);
    expect(first.fields.repo.warnings[0]).toMatch(/which starts from HEAD [0-9a-f]{12} on main\.$/);
  });

  it('runs a workflow file that is named, still from the branch result', async () => {
    const preview = await previewOf({ from: { fork_id: parentId, branch_id: 'branch-claude' }, workflow_file: h.workflowFile });
    expect(preview.ready).toBe(true);
    expect(preview.follow_up).toMatchObject({ from: { branch_id: 'branch-claude' }, parent_workflow: false });
    expect(preview.workflow?.source).toBe('file');
  });

  it('says at the repository field why a follow-up cannot start, with the start codes', async () => {
    const missing = await previewOf({ from: { fork_id: parentId, branch_id: 'branch-nowhere' } });
    expect(missing.ready).toBe(false);
    expect(missing.follow_up).toBeNull();
    expect(missing.fields.repo.problems.map((p) => p.code)).toEqual(['BRANCH_NOT_FOUND']);
    expect(missing.workflow).toBeNull();

    const other = new ForkHarness(tempDir('citadel-preview-other-'));
    const elsewhere = await previewOf({ from: { fork_id: parentId, branch_id: 'branch-codex' }, repo: other.repo });
    expect(elsewhere.ready).toBe(false);
    expect(elsewhere.fields.repo.problems.map((p) => p.code)).toEqual(['PARENT_TARGET_MISMATCH']);
  });
});
