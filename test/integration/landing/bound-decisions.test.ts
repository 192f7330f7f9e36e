/**
 * Decisions follow the journal, not the unsigned records beside it (issue 12, item 2):
 * - selection.json is bound to the `selection.record` journal lines, which carry its digest: an
 *   edited selection (actor, reason digest, key, revision) is refused by `fork land` with
 *   SELECTION_RECORD_MISMATCH and not shown by replay; a line appended with the edited digest does
 *   not rebind it. The landing plan's `fork_revision` is the selection's, never fork.json's.
 * - a landed fork whose fork.json state is forged: resumability follows the journal and
 *   landing.json (nothing to resume), `fork select` stays refused, and `fork resume` records the
 *   state the journal proves again; a landing.json that is gone or edited is unsettled, and resume
 *   writes it back from the journal.
 * The control in each case is the real decision, landing as it is.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { landingChecks, resumability } from '../../../main/orchestrator';
import { Journal } from '../../../main/store/journal';
import { selectionDigest, type SelectionRecord } from '../../../shared/fork/landing';
import { FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import type { CliRun } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const env = { CITADEL_KEYSTORE: 'file' };

async function selectedFork(prefix: string): Promise<{ h: ForkHarness; forkId: string; selectionFile: string; journalFile: string }> {
  const h = new ForkHarness(tempDir(prefix));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env);
  expect(run.code, run.stderr).toBe(0);
  expect(doc.state).toBe('ready');
  const selected = await h.cli(['fork', 'select', doc.fork_id, 'branch-claude', '--reason', 'its verifier passed', '--json'], env);
  expect(selected.code, selected.stdout).toBe(0);
  return { h, forkId: doc.fork_id, selectionFile: path.join(h.forkDir(doc.fork_id), 'selection.json'), journalFile: path.join(h.forkDir(doc.fork_id), 'journal.jsonl') };
}

const errorCode = (run: CliRun): string | undefined => (JSON.parse(run.stdout) as { error?: { code: string } }).error?.code;


describe('decisions follow the journal', () => {
  it('an edited selection.json is refused by land and not shown by replay; the journaled selection lands', { timeout: 240_000 }, async () => {
    const { h, forkId, selectionFile, journalFile } = await selectedFork('citadel-bound-selection-');
    const original = readFileSync(selectionFile, 'utf8');
    const selection = JSON.parse(original) as SelectionRecord;
    // Both journal lines of the selection carry its digest.
    const lines = h.readJsonLines(journalFile).filter((r) => r.effect === 'selection.record');
    expect(lines.map((r) => [r.phase, (r.data as Record<string, unknown> | undefined)?.selection_digest])).toEqual([
      ['intent', selectionDigest(selection)],
      ['result', selectionDigest(selection)],
    ]);

    const edits: Partial<SelectionRecord>[] = [{ actor: 'mallory' }, { reason_digest: `sha256:${'a'.repeat(64)}` }, { idempotency_key: 'sel-forged' }, { fork_revision: selection.fork_revision + 1 }];
    for (const edit of edits) {
      writeFileSync(selectionFile, JSON.stringify({ ...selection, ...edit }));
      const plan = await h.cli(['fork', 'land', forkId, '--json'], env);
      expect([Object.keys(edit)[0], plan.code, errorCode(plan)]).toEqual([Object.keys(edit)[0], 1, 'SELECTION_RECORD_MISMATCH']);
    }
    const replay = JSON.parse((await h.cli(['fork', 'replay', forkId, '--json'], env)).stdout) as { selection: { selected: boolean; problem?: string } };
    expect(replay.selection).toMatchObject({ selected: false, problem: 'selection_unverified' });

    // A line appended with the edited record's digest does not rebind the key: its first lines disagree.
    const journalBefore = readFileSync(journalFile, 'utf8');
    const forged: SelectionRecord = { ...selection, actor: 'mallory' };
    writeFileSync(selectionFile, JSON.stringify(forged));
    const journal = await Journal.open(journalFile);
    await journal.result('selection.record', selection.idempotency_key, 'done', { fork_revision: selection.fork_revision + 1, selection_digest: selectionDigest(forged) });
    expect(errorCode(await h.cli(['fork', 'land', forkId, '--json'], env))).toBe('SELECTION_RECORD_MISMATCH');

    // fork.json's revision is unsigned: the plan names the revision the selection is current at, and the check says the record moved.
    writeFileSync(journalFile, journalBefore);
    writeFileSync(selectionFile, original);
    const recordFile = path.join(h.forkDir(forkId), 'fork.json');
    const record = readFileSync(recordFile, 'utf8');
    writeFileSync(recordFile, JSON.stringify({ ...(JSON.parse(record) as { revision: number }), revision: 40 }));
    const moved = await landingChecks(await openOrchestratorContext({ env: h.env(env) }), forkId);
    expect(moved.token).toBeNull();
    expect(moved.plan.fork_revision).toBe(selection.fork_revision + 1);
    expect(moved.checks.find((c) => c.name === 'selection_current')?.reason).toMatch(/now at revision 40/);
    writeFileSync(recordFile, record);

    // The control: the journaled selection, as recorded, plans and lands.
    await h.landConfirmed(forkId, env);
  });

  it('a landed fork with a forged fork.json state: resumability and resume follow the journal and landing.json', { timeout: 240_000 }, async () => {
    const { h, forkId } = await selectedFork('citadel-bound-landed-');
    await h.landConfirmed(forkId, env);
    const ctx = await openOrchestratorContext({ env: h.env(env) });
    const recordFile = path.join(h.forkDir(forkId), 'fork.json');
    const landingFile = path.join(h.forkDir(forkId), 'landing.json');
    const landing = JSON.parse(readFileSync(landingFile, 'utf8')) as Record<string, unknown>;
    expect(await resumability(ctx, forkId)).toEqual({ resumable: false, reason: 'nothing_to_resume' });

    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as { state: string };
    for (const state of ['ready', 'selected', 'blocked']) {
      writeFileSync(recordFile, JSON.stringify({ ...record, state }));
      expect([state, await resumability(ctx, forkId)]).toEqual([state, { resumable: false, reason: 'nothing_to_resume' }]);
      // compare shows the record's state only beside its label.
      expect(JSON.parse((await h.cli(['fork', 'compare', forkId, '--json'], env)).stdout)).toMatchObject({ state, record_facts: 'unverified', outcome: 'recommend' });
      expect(errorCode(await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'again', '--json'], env))).toBe('FORK_STATE_CONFLICT');
    }
    // Resume records what the journal proves (the merge commit is in the target): landed again, landing.json as it was.
    const resumed = await h.cli(['fork', 'resume', forkId, '--json'], env);
    expect(resumed.code, resumed.stdout).toBe(0);
    expect(parseDoc(resumed).state).toBe('landed');
    expect(JSON.parse(readFileSync(landingFile, 'utf8'))).toEqual(landing);

    // landing.json gone, or not the journal's landing: unsettled, and resume writes it from the journal.
    for (const change of [() => rmSync(landingFile), () => writeFileSync(landingFile, JSON.stringify({ ...landing, target_branch: 'elsewhere' }))]) {
      change();
      expect(await resumability(ctx, forkId)).toEqual({ resumable: true, reason: 'landing_unsettled' });
      expect((await h.cli(['fork', 'resume', forkId, '--json'], env)).code).toBe(0);
      expect(JSON.parse(readFileSync(landingFile, 'utf8'))).toEqual(landing);
      expect(await resumability(ctx, forkId)).toEqual({ resumable: false, reason: 'nothing_to_resume' });
    }
  });
});
