/**
 * Deciding safely (issue 14, item 4): selecting the branch whose verifier failed, which the
 * comparison does not recommend, is refused without `--against-evidence` (exit 1,
 * SELECTION_AGAINST_EVIDENCE, nothing recorded); with it, the acknowledgement and what the
 * evidence said are part of the signed selection, and `fork land` prints a warning line.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { forkOverview } from '../../../main/orchestrator/index';
import type { SelectionRecord } from '../../../shared/fork/landing';
import { FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const env = { CITADEL_KEYSTORE: 'file' };
const EVIDENCE = "branch-codex's verifier failed (VERIFIER_FAILED); the comparison recommends branch-claude";

describe('selecting against the evidence', () => {
  it('is refused without the acknowledgement and records nothing; with it, the signed selection carries it and landing warns', { timeout: 240_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-against-evidence-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state).toBe('ready');
    const dir = h.forkDir(doc.fork_id);
    const journal = path.join(dir, 'journal.jsonl');
    const journalBefore = readFileSync(journal, 'utf8');
    const select = (...extra: string[]) => h.cli(['fork', 'select', doc.fork_id, 'branch-codex', '--reason', 'I prefer its style', ...extra], env);

    const refused = await select('--json');
    expect(refused.code).toBe(1);
    const error = (JSON.parse(refused.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('SELECTION_AGAINST_EVIDENCE');
    expect(error.message).toContain(EVIDENCE);
    // Nothing recorded: no selection, no signature, no decision history, no journal line, no transition.
    for (const file of ['selection.json', 'selection.sig.json', 'selections']) expect(existsSync(path.join(dir, file)), file).toBe(false);
    expect(readFileSync(journal, 'utf8')).toBe(journalBefore);
    expect(parseDoc(await h.cli(['fork', 'status', doc.fork_id, '--json'], env))).toMatchObject({ state: 'ready', revision: doc.revision });
    const human = await select();
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(EVIDENCE);

    const acknowledged = await select('--against-evidence', '--json');
    expect(acknowledged.code, acknowledged.stdout).toBe(0);
    const selection = (JSON.parse(acknowledged.stdout) as { selection: SelectionRecord }).selection;
    expect(selection.against_evidence).toEqual({
      acknowledged: true,
      evidence: {
        outcome: 'recommend',
        recommended_branch_id: 'branch-claude',
        verifier_status: 'failed',
        status: 'failed',
        failure_code: 'VERIFIER_FAILED',
        required_evidence: { required: expect.any(Number), present: expect.any(Number) },
      },
    });
    // Immutable and signed: the stored record is the one the envelope signs.
    const stored = h.readJson(path.join(dir, 'selection.json'));
    expect(stored).toEqual(selection);
    expect(h.readJson<{ receipt: unknown }>(path.join(dir, 'selection.sig.json')).receipt).toEqual(selection);
    // Repeating the same words still needs the acknowledgement.
    expect(JSON.parse((await select('--json')).stdout)).toMatchObject({ error: { code: 'SELECTION_AGAINST_EVIDENCE' } });

    const plan = await h.cli(['fork', 'land', doc.fork_id], env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.split('\n')[0]).toBe(`WARNING: branch-codex was selected against the evidence (acknowledged): ${EVIDENCE}`);
    const planJson = JSON.parse((await h.cli(['fork', 'land', doc.fork_id, '--json'], env)).stdout) as { token: string | null; against_evidence: unknown };
    expect(planJson.token).toMatch(/^[0-9a-f]{12}$/);
    expect(planJson.against_evidence).toEqual({ branch_id: 'branch-codex', ...selection.against_evidence });

    // The public replay says so (the fact alone); the Fork page's header shows what the evidence said.
    const replay = await h.cli(['fork', 'replay', doc.fork_id], env);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ selection: { selected: true, branch_id: 'branch-codex', against_evidence: true } });
    const ctx = await openOrchestratorContext({ env: h.env(env) });
    expect((await forkOverview(ctx, doc.fork_id)).selection?.against_evidence).toEqual(selection.against_evidence);
    // The v1 decision attestation keeps its shape (a new field would be a new vN): the selection
    // without the mark, bound to the replay that carries it.
    const attested = await h.cli(['fork', 'attest', doc.fork_id], env);
    expect(attested.code, attested.stderr).toBe(0);
    const statements = attested.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(Buffer.from((JSON.parse(line) as { payload: string }).payload, 'base64').toString('utf8')) as { predicateType: string; predicate: { selection?: unknown } });
    const decision = statements.find((statement) => statement.predicateType === 'urn:citadel:attestation:fork-decision:v1');
    expect(decision?.predicate.selection).toEqual({ selected: true, branch_id: 'branch-codex', selected_at: selection.selected_at });

    // The acknowledgement is bound: a selection.json without it is not the recorded selection.
    const without: Partial<SelectionRecord> = { ...selection };
    delete without.against_evidence;
    writeFileSync(path.join(dir, 'selection.json'), JSON.stringify(without));
    const stripped = await h.cli(['fork', 'land', doc.fork_id, '--json'], env);
    expect(stripped.code).toBe(1);
    expect(JSON.parse(stripped.stdout)).toMatchObject({ error: { code: 'SELECTION_RECORD_MISMATCH' } });
    writeFileSync(path.join(dir, 'selection.json'), JSON.stringify(stored));

    // The recommended branch needs no acknowledgement, records none, and landing does not warn.
    const recommended = await h.cli(['fork', 'select', doc.fork_id, 'branch-claude', '--reason', 'its verifier passed', '--json'], env);
    expect(recommended.code, recommended.stdout).toBe(0);
    expect((JSON.parse(recommended.stdout) as { selection: Record<string, unknown> }).selection).not.toHaveProperty('against_evidence');
    const clean = await h.cli(['fork', 'land', doc.fork_id], env);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).not.toContain('WARNING');
    expect(JSON.parse((await h.cli(['fork', 'land', doc.fork_id, '--json'], env)).stdout)).toMatchObject({ against_evidence: null });
    expect(JSON.parse((await h.cli(['fork', 'replay', doc.fork_id], env)).stdout).selection).not.toHaveProperty('against_evidence');
    expect((await forkOverview(ctx, doc.fork_id)).selection?.against_evidence).toBeNull();
  });
});
