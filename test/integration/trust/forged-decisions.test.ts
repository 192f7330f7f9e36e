/**
 * Decision records never display as proof (issue 12, item 2): selection.json and landing.json are
 * unsigned files. Replay and proof show a fork landed only when its landing holds (journal and
 * record agree, the target is the bound one, the merge commit is there with the verified branch
 * head as second parent) and selected only when the selection names a branch comparable now.
 * The control in each case is the real decision, shown as it is.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { landingKey, type LandingIntent } from '../../../main/landing/landing-journal';
import { Journal } from '../../../main/store/journal';
import { selectionDigest, type LandingRecord, type SelectionRecord } from '../../../shared/fork/landing';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const env = { CITADEL_KEYSTORE: 'file' };

interface Shown {
  readonly selection: { selected: boolean; branch_id: string | null };
  readonly landing: { landed: boolean };
}

async function readyFork(prefix: string): Promise<{ h: ForkHarness; forkId: string }> {
  const h = new ForkHarness(tempDir(prefix));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env);
  expect(run.code, run.stderr).toBe(0);
  expect(doc.state).toBe('ready');
  return { h, forkId: doc.fork_id };
}

/** What replay and the proof's embedded replay show: always the same, or the test fails. */
async function shown(h: ForkHarness, forkId: string): Promise<Shown> {
  const replay = await h.cli(['fork', 'replay', forkId, '--json'], env);
  expect(replay.code, replay.stdout).toBe(0);
  const proof = await h.cli(['fork', 'proof', forkId, '--json'], env);
  expect(proof.code, proof.stdout).toBe(0);
  const fromReplay = JSON.parse(replay.stdout) as Shown & { fork: { record_facts?: string } };
  const report = JSON.parse(proof.stdout) as { replay: Shown; record_facts?: string };
  const fromProof = report.replay;
  // fork.json's facts are unsigned: labelled so in both artifacts.
  expect([fromReplay.fork.record_facts, report.record_facts]).toEqual(['unverified', 'unverified']);
  const pick = (s: Shown): Shown => ({ selection: { selected: s.selection.selected, branch_id: s.selection.branch_id }, landing: { landed: s.landing.landed } });
  expect(pick(fromProof)).toEqual(pick(fromReplay));
  return pick(fromReplay);
}

describe('forged decision records in replay and proof', () => {
  // Many CLI runs (replay and proof after each forgery): generous under a loaded machine.
  it('a landing.json with journal lines for a merge that never happened is not landed; a real landing is, only in the bound target', { timeout: 240_000 }, async () => {
    const { h, forkId } = await readyFork('citadel-forged-decisions-land-');
    expect((await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'passed', '--json'], env)).code).toBe(0);
    const ctx = await openOrchestratorContext({ env: h.env(env) });
    const selection = JSON.parse(readFileSync(path.join(h.forkDir(forkId), 'selection.json'), 'utf8')) as SelectionRecord;
    const head = h.gitIn(h.repo, 'rev-parse', 'HEAD');
    const branchHead = h.gitIn(h.repo, 'rev-parse', `citadel/${forkId}/branch-claude`);
    const landingFile = path.join(h.forkDir(forkId), 'landing.json');
    const journalFile = ctx.store.file(forkId, 'journal');
    const journalBefore = readFileSync(journalFile, 'utf8');
    const forged = 'e'.repeat(40);
    const record: LandingRecord = {
      status: 'landed',
      fork_id: forkId,
      branch_id: 'branch-claude',
      fork_revision: selection.fork_revision,
      selection_digest: selectionDigest(selection),
      target_branch: 'main',
      target_head_before: head,
      selected_branch_head: branchHead,
      merge_commit: forged,
      landed_at: '2026-01-01T00:00:00.000Z',
    };
    writeFileSync(landingFile, JSON.stringify(record));
    expect(await shown(h, forkId)).toMatchObject({ selection: { selected: true }, landing: { landed: false } });
    // With the journal lines a landing would have written: still no such commit in the target.
    const intent: LandingIntent = {
      fork_id: forkId,
      branch_id: 'branch-claude',
      git_branch: `citadel/${forkId}/branch-claude`,
      fork_revision: selection.fork_revision,
      selection_digest: selectionDigest(selection),
      target_branch: 'main',
      expected_parents: [head, branchHead],
    };
    const journal = await Journal.open(journalFile);
    await journal.intent('landing.merge', landingKey(selection, 1), intent);
    await journal.result('landing.merge', landingKey(selection, 1), 'done', { merge_commit: forged, landed_at: record.landed_at, reconciled: false });
    expect(await shown(h, forkId)).toMatchObject({ landing: { landed: false } });

    // The control: the forgeries removed, the real landing shows landed.
    writeFileSync(journalFile, journalBefore);
    rmSync(landingFile);
    const token = (JSON.parse((await h.cli(['fork', 'land', forkId, '--json'], env)).stdout) as { token: string }).token;
    const landed = await h.cli(['fork', 'land', forkId, '--confirm', token, '--json'], env);
    expect(landed.code, landed.stdout).toBe(0);
    expect(await shown(h, forkId)).toEqual({ selection: { selected: true, branch_id: 'branch-claude' }, landing: { landed: true } });

    // A copy of the landed target holds the same merge commit, but it is not the bound repository.
    const copy = path.join(h.base, 'copy');
    cpSync(h.repo, copy, { recursive: true });
    const requestFile = path.join(h.forkDir(forkId), 'request.json');
    const request = readFileSync(requestFile, 'utf8');
    writeFileSync(requestFile, JSON.stringify({ ...(JSON.parse(request) as object), repo: copy }));
    expect(await shown(h, forkId)).toMatchObject({ landing: { landed: false } });
    writeFileSync(requestFile, request);
    // The merge commit undone in the target: the landing no longer holds.
    h.gitIn(h.repo, 'reset', '-q', '--hard', head);
    expect(await shown(h, forkId)).toMatchObject({ landing: { landed: false } });
  });

  it('a selection.json naming a branch that is not comparable now is not selected; the real selection is', { timeout: 240_000 }, async () => {
    const { h, forkId } = await readyFork('citadel-forged-decisions-select-');
    expect((await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'passed', '--json'], env)).code).toBe(0);
    expect(await shown(h, forkId)).toMatchObject({ selection: { selected: true, branch_id: 'branch-claude' } });
    const selectionFile = path.join(h.forkDir(forkId), 'selection.json');
    const selection = JSON.parse(readFileSync(selectionFile, 'utf8')) as SelectionRecord;
    // Another fork's id, and a branch the fork does not have.
    for (const forged of [{ ...selection, fork_id: `fork-${'0'.repeat(26)}` }, { ...selection, branch_id: 'branch-gemini' }]) {
      writeFileSync(selectionFile, JSON.stringify(forged));
      expect(await shown(h, forkId)).toMatchObject({ selection: { selected: false, branch_id: null } });
    }
    writeFileSync(selectionFile, JSON.stringify(selection));
    // The selected branch's receipt tampered with: it is no longer comparable, so no longer selected.
    const receiptFile = h.attemptFile(forkId, 'branch-claude', 'execution-receipt.json');
    const receipt = readFileSync(receiptFile, 'utf8');
    writeFileSync(receiptFile, receipt.replace('"passed"', '"failed"'));
    expect(await shown(h, forkId)).toMatchObject({ selection: { selected: false } });
    writeFileSync(receiptFile, receipt);
    expect(await shown(h, forkId)).toMatchObject({ selection: { selected: true, branch_id: 'branch-claude' } });
  });
});
