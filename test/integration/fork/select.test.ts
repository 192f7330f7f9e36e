import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

/** Claude's branch passes; Codex's run fails (no comparable result), so the fork settles `failed`. */
async function settledFork(): Promise<{ h: ForkHarness; forkId: string }> {
  const h = new ForkHarness(tempDir('citadel-select-'));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { outcome: 'auth_error' } });
  const { doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
  return { h, forkId: doc.fork_id };
}

describe('fork select', () => {
  it('records an immutable decision without touching git; repeating it is idempotent', async () => {
    const h = new ForkHarness(tempDir('citadel-select-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const { doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
    const refsBefore = h.gitIn(h.repo, 'for-each-ref');
    const headBefore = h.gitIn(h.repo, 'rev-parse', 'HEAD');
    const args = ['fork', 'select', doc.fork_id, 'branch-claude', '--reason', 'verifier passed', '--actor', 'alice', '--json'];
    const first = await h.cli(args);
    expect(first.code, first.stderr).toBe(0);
    const selection = (JSON.parse(first.stdout) as { selection: Record<string, unknown>; git_touched: boolean }).selection;
    expect(selection).toMatchObject({ fork_id: doc.fork_id, branch_id: 'branch-claude', actor: 'alice', fork_revision: doc.revision });
    expect(JSON.stringify(selection)).not.toContain('verifier passed');
    const again = await h.cli(args);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
    const status = parseDoc(await h.cli(['fork', 'status', doc.fork_id, '--json']));
    expect(status).toMatchObject({ state: 'selected', revision: doc.revision + 1 });
    expect(h.gitIn(h.repo, 'for-each-ref')).toBe(refsBefore);
    expect(h.gitIn(h.repo, 'rev-parse', 'HEAD')).toBe(headBefore);

    const conflict = await h.cli(['fork', 'select', doc.fork_id, 'branch-codex', '--reason', 'other', '--idempotency-key', String(selection.idempotency_key), '--json']);
    expect(conflict.code).toBe(1);
    expect(JSON.parse(conflict.stdout)).toMatchObject({ error: { code: 'SELECTION_KEY_CONFLICT' } });

    // A, then B (against the evidence, acknowledged), then A again with the same words: the last decision is the current one.
    const toCodex = await h.cli(['fork', 'select', doc.fork_id, 'branch-codex', '--reason', 'second thoughts', '--actor', 'alice', '--against-evidence', '--json']);
    expect(toCodex.code, toCodex.stdout).toBe(0);
    const back = await h.cli(args);
    expect(back.code, back.stdout).toBe(0);
    const current = (JSON.parse(back.stdout) as { selection: { branch_id: string; fork_revision: number } }).selection;
    expect(current.branch_id).toBe('branch-claude');
    const after = parseDoc(await h.cli(['fork', 'status', doc.fork_id, '--json']));
    expect(after.revision).toBe(current.fork_revision + 1);
    const land = JSON.parse((await h.cli(['fork', 'land', doc.fork_id, '--json'])).stdout) as { checks: { name: string; ok: boolean }[] };
    expect(land.checks.find((c) => c.name === 'selection_current')?.ok).toBe(true);
  });

  it('refuses a branch that is not comparable; a settled failed fork is decided from its passing branch, acknowledged, and lands', async () => {
    const { h, forkId } = await settledFork();
    const status = parseDoc(await h.cli(['fork', 'status', forkId, '--json']));
    expect(status.state).toBe('failed');
    const refused = await h.cli(['fork', 'select', forkId, 'branch-codex', '--reason', 'x', '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'SELECTION_REFUSED', details: { reasons: ['runtime_did_not_complete'] } } });
    const noReason = await h.cli(['fork', 'select', forkId, 'branch-claude', '--json']);
    expect(noReason.code).toBe(2);
    // The only comparable branch was compared with nothing: the acknowledgement is required, then it is selected and lands.
    const unacknowledged = await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'it passed', '--json']);
    expect(JSON.parse(unacknowledged.stdout)).toMatchObject({ error: { code: 'SELECTION_AGAINST_EVIDENCE', details: { outcome: 'insufficient-evidence' } } });
    const selected = await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'it passed', '--against-evidence', '--json']);
    expect(selected.code, selected.stdout).toBe(0);
    expect(parseDoc(await h.cli(['fork', 'status', forkId, '--json']))).toMatchObject({ state: 'selected', revision: status.revision + 1 });
    await h.landConfirmed(forkId);
    expect(h.gitIn(h.repo, 'show', 'main:src/sum.js')).toBe(FIXED_SUM.trim());

    const three = new ForkHarness(tempDir('citadel-select-'));
    await three.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { outcome: 'auth_error' } });
    const executors = `${three.base}/executors.json`;
    writeFileSync(
      executors,
      JSON.stringify({
        schema_version: 1,
        executors: ['claude-a', 'claude-b'].map((id) => ({ profile_id: id, runtime: 'claude', model: null, local_provider: null, adapter_options: {} })).concat([
          { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
        ]),
      }),
    );
    const { doc } = await three.startJson(['--executors', executors, '--workflow', three.workflowFile]);
    expect(doc.state).toBe('ready');
    const notComparable = await three.cli(['fork', 'select', doc.fork_id, 'branch-codex-a', '--reason', 'cheapest', '--json']);
    expect(notComparable.code).toBe(1);
    expect(JSON.parse(notComparable.stdout)).toMatchObject({ error: { code: 'SELECTION_REFUSED', details: { reasons: ['runtime_did_not_complete'] } } });
  });

  it('refuses a damaged selection record instead of reading it as "not selected"', async () => {
    const h = new ForkHarness(tempDir('citadel-select-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const forkId = (await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile])).doc.fork_id;
    const selected = await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'passed', '--json']);
    expect(selected.code, selected.stdout).toBe(0);
    const replay = await h.cli(['fork', 'replay', forkId]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ selection: { selected: true, branch_id: 'branch-claude' } });

    writeFileSync(path.join(h.root, 'forks', forkId, 'selection.json'), '{"branch_id":"branch-claude","selected_at":"2026-01-01T00:00:00Z"}');
    for (const args of [['fork', 'replay', forkId, '--json'], ['fork', 'land', forkId, '--json']]) {
      const refused = await h.cli(args);
      expect(refused.code, args.join(' ')).not.toBe(0);
      expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'FORK_RECORD_INVALID' } });
    }
  });
});
