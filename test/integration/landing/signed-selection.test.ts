/**
 * The selection is signed (issue 12): `fork select` seals selection.json with the fork's signing key
 * as selection.sig.json, and landing and replay hold it to the fork's trusted signer.
 * - a forged selection.json with matching journal lines appended under a new key (what the journal
 *   binding alone accepts) is refused with SELECTION_SIGNATURE_INVALID, also with its signature
 *   deleted; replay shows no selection (`selection_unverified`);
 * - a forged selection signed with another key, and a whole fork re-signed with that key, are refused;
 * - a selection made before selections were signed (no signature, no `signed` journal lines) stands
 *   on the journal alone, and replay says `signature: 'unsigned'`;
 * - the control: the real selection plans and lands.
 */
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { signEnvelope } from '../../../main/evidence/signing/sign-envelope';
import { Journal } from '../../../main/store/journal';
import { selectionDigest, type SelectionRecord } from '../../../shared/fork/landing';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { resignFork } from '../../support/resign-fork';
import type { CliRun } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const env = { CITADEL_KEYSTORE: 'file' };

const errorOf = (run: CliRun): { code: string; message: string } | undefined => (JSON.parse(run.stdout) as { error?: { code: string; message: string } }).error;

async function selectedFork(prefix: string): Promise<{ h: ForkHarness; forkId: string; dir: string }> {
  const h = new ForkHarness(tempDir(prefix));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env);
  expect(run.code, run.stderr).toBe(0);
  expect(doc.state).toBe('ready');
  const selected = await h.cli(['fork', 'select', doc.fork_id, 'branch-claude', '--reason', 'its verifier passed', '--json'], env);
  expect(selected.code, selected.stdout).toBe(0);
  return { h, forkId: doc.fork_id, dir: h.forkDir(doc.fork_id) };
}

/** The journal as a fork selected before selections were signed has it: its selection lines without `signed`. */
function unsignedJournal(text: string): string {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const r = JSON.parse(line) as { effect: string; data?: Record<string, unknown> };
      if (r.effect === 'selection.record' && r.data) delete r.data.signed;
      return `${JSON.stringify(r)}\n`;
    })
    .join('');
}


describe('a signed selection', () => {
  it('forged, re-signed and legacy selections: only a trusted signature or a legacy journal-bound selection plans; the signed one lands', { timeout: 300_000 }, async () => {
    const { h, forkId, dir } = await selectedFork('citadel-signed-selection-');
    const files = { selection: path.join(dir, 'selection.json'), signature: path.join(dir, 'selection.sig.json'), journal: path.join(dir, 'journal.jsonl') };
    const saved = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readFileSync(f, 'utf8')])) as Record<keyof typeof files, string>;
    const restore = (): void => {
      for (const [k, f] of Object.entries(files)) writeFileSync(f, saved[k as keyof typeof files]);
    };
    const selection = JSON.parse(saved.selection) as SelectionRecord;
    const envelope = JSON.parse(saved.signature) as { receipt: unknown; receipt_digest: string };
    expect(envelope.receipt).toEqual(selection);
    expect(envelope.receipt_digest).toBe(selectionDigest(selection));
    expect(h.readJsonLines(files.journal).filter((r) => r.effect === 'selection.record').map((r) => (r.data as Record<string, unknown>).signed)).toEqual([true, true]);

    const plan = async (): Promise<CliRun> => h.cli(['fork', 'land', forkId, '--json'], env);
    const replaySelection = async (): Promise<Record<string, unknown>> =>
      (JSON.parse((await h.cli(['fork', 'replay', forkId, '--json'], env)).stdout) as { selection: Record<string, unknown> }).selection;
    expect(JSON.parse((await plan()).stdout)).toMatchObject({ token: expect.stringMatching(/^[0-9a-f]{12}$/), checks: expect.arrayContaining([{ name: 'selection_current', ok: true, reason: null }]) });
    expect(await replaySelection()).toEqual({ selected: true, branch_id: 'branch-claude', selected_at: selection.selected_at });

    // A forged decision and the journal lines that bind it, appended as `fork select` writes them.
    const forged: SelectionRecord = { ...selection, branch_id: 'branch-codex', actor: 'mallory', idempotency_key: 'sel-forged' };
    const forge = async (data: Record<string, boolean> = {}): Promise<void> => {
      writeFileSync(files.selection, JSON.stringify(forged));
      const journal = await Journal.open(files.journal);
      await journal.intent('selection.record', forged.idempotency_key, { selection_digest: selectionDigest(forged), ...data });
      await journal.result('selection.record', forged.idempotency_key, 'done', { fork_revision: forged.fork_revision + 1, selection_digest: selectionDigest(forged), ...data });
    };
    await forge();
    expect(errorOf(await plan())).toMatchObject({ code: 'SELECTION_SIGNATURE_INVALID', message: expect.stringMatching(/signs another selection/) });
    expect(await replaySelection()).toMatchObject({ selected: false, problem: 'selection_unverified' });
    // Its signature deleted too: the journal records signed selections, so it is no legacy selection.
    rmSync(files.signature);
    expect(errorOf(await plan())).toMatchObject({ code: 'SELECTION_SIGNATURE_INVALID', message: expect.stringMatching(/no signature/) });

    // Signed with another key, with and without the signed journal flag.
    const mallory = generateKeyPairSync('ed25519').privateKey;
    for (const data of [{}, { signed: true }]) {
      restore();
      await forge(data);
      writeFileSync(files.signature, JSON.stringify(signEnvelope(forged, mallory)));
      expect([data, errorOf(await plan())]).toMatchObject([data, { code: 'SELECTION_SIGNATURE_INVALID', message: expect.stringMatching(/signature_invalid/) }]);
    }

    // The whole fork re-signed with that key, the forged selection too: the signer is not trusted here.
    const template = path.join(h.base, 'fork-template');
    rmSync(template, { recursive: true, force: true });
    cpSync(dir, template, { recursive: true });
    resignFork(dir, mallory);
    expect(errorOf(await plan())).toMatchObject({ code: 'SELECTION_SIGNATURE_INVALID', message: expect.stringMatching(/not trusted/) });
    expect(await replaySelection()).toMatchObject({ selected: false, problem: 'selection_unverified' });
    rmSync(dir, { recursive: true, force: true });
    cpSync(template, dir, { recursive: true });

    // Selected before selections were signed: no signature and no `signed` lines. It stands on the journal, shown so.
    restore();
    rmSync(files.signature);
    writeFileSync(files.journal, unsignedJournal(saved.journal));
    expect(JSON.parse((await plan()).stdout)).toMatchObject({
      token: expect.stringMatching(/^[0-9a-f]{12}$/),
      checks: expect.arrayContaining([{ name: 'selection_current', ok: true, reason: expect.stringMatching(/unsigned selection/) }]),
    });
    expect(await replaySelection()).toEqual({ selected: true, branch_id: 'branch-claude', selected_at: selection.selected_at, signature: 'unsigned' });
    // The forged decision on a legacy fork is still bound by the journal: its first lines disagree.
    writeFileSync(files.selection, JSON.stringify({ ...selection, actor: 'mallory' }));
    expect(errorOf(await plan())?.code).toBe('SELECTION_RECORD_MISMATCH');

    // The control: the signed selection, as recorded, plans and lands.
    restore();
    await h.landConfirmed(forkId, env);
  });

  it('a selection made before selections were signed still lands, and replay shows it unsigned', { timeout: 240_000 }, async () => {
    const { h, forkId, dir } = await selectedFork('citadel-unsigned-selection-');
    rmSync(path.join(dir, 'selection.sig.json'));
    const journalFile = path.join(dir, 'journal.jsonl');
    writeFileSync(journalFile, unsignedJournal(readFileSync(journalFile, 'utf8')));
    await h.landConfirmed(forkId, env);
    const replay = JSON.parse((await h.cli(['fork', 'replay', forkId, '--json'], env)).stdout) as { selection: Record<string, unknown>; landing: Record<string, unknown> };
    expect(replay.selection).toMatchObject({ selected: true, branch_id: 'branch-claude', signature: 'unsigned' });
    expect(replay.landing).toMatchObject({ landed: true });
  });
});
