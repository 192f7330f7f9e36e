/**
 * Landing a fork the real engine produced (`citadel fork start` as a child process, simulated
 * runtimes): the selected branch's verified fix reaches the target through one merge commit, and
 * `citadel fork status` shows the fork landed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { land } from '../../../main/landing/land';
import { landingChecks } from '../../../main/landing/landing-checks';
import type { LandingInput } from '../../../main/landing/landing-input';
import { ForkRequestSchema } from '../../../shared/fork/fork-request';
import { commitTransition } from '../../../main/store/record-transitions';
import { sha256Digest } from '../../../shared/digest';
import type { SelectionRecord } from '../../../shared/fork/landing';
import { FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('landing a fork run by the engine', () => {
  it('merges the selected passing branch into the target and the CLI reports the fork landed', async () => {
    const h = new ForkHarness(tempDir('citadel-land-real-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state).toBe('ready');

    const ctx = await openOrchestratorContext({ env: { CITADEL_HOME: h.root, CITADEL_KEYSTORE: 'file' } });
    const record = await ctx.store.readRecord(doc.fork_id);
    const { repo } = await ctx.store.readJson(doc.fork_id, 'request', ForkRequestSchema);
    // Recorded as `fork select` records it: the decision at the revision seen, then one transition.
    const selection: SelectionRecord = {
      fork_id: record.fork_id,
      fork_revision: record.revision,
      branch_id: 'branch-claude',
      actor: 'operator',
      reason_digest: sha256Digest('the tests pass'),
      idempotency_key: 'select-real',
      selected_at: ctx.now().toISOString(),
    };
    await commitTransition(ctx, record, {}, 'selected');
    const asked: string[] = [];
    const input: LandingInput = {
      ctx,
      forkId: doc.fork_id,
      repo,
      selection,
      isReceiptVerified: async (branchId) => {
        asked.push(branchId);
        return { ok: true, reason: null };
      },
    };
    const headBefore = h.gitIn(h.repo, 'rev-parse', 'HEAD');
    const branchHead = h.gitIn(h.repo, 'rev-parse', `refs/heads/citadel/${doc.fork_id}/branch-claude`);

    const checks = await landingChecks(input);
    expect(checks.checks.filter((c) => !c.ok)).toEqual([]);
    const result = await land(input, checks.token ?? '');

    expect(asked).toEqual(['branch-claude', 'branch-claude']);
    expect(h.gitIn(h.repo, 'rev-list', '--parents', '-n', '1', 'HEAD')).toBe(`${result.merge_commit} ${headBefore} ${branchHead}`);
    expect(readFileSync(path.join(h.repo, 'src', 'sum.js'), 'utf8')).toBe(FIXED_SUM);
    expect(h.gitIn(h.repo, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    const status = parseDoc(await h.cli(['fork', 'status', doc.fork_id, '--json']));
    expect(status).toMatchObject({ state: 'landed', revision: record.revision + 2 });
  });
});
