/**
 * Issue 28 end to end through the real CLI: `--budget-tokens` is validated with stable codes and
 * frozen in the contract (absent without the flag); a branch without a gateway has a receipt with no
 * wire facts that verifies as before, and a receipt re-signed with the fork's own key to claim wire
 * facts its contract binds no gateway for is refused (`wire_mismatch`); `fork status` lists what a
 * branch's egress refused.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateKeyFromText } from '../../../main/evidence/keys/private-key-text';
import { signEnvelope } from '../../../main/evidence/signing/sign-envelope';
import type { ComparedBranch } from '../../../shared/fork/compare';
import type { ExecutionReceipt } from '../../../shared/fork/receipts';
import { wireFactsOf } from '../../../shared/runtime/wire-facts';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const FILE_KEYS = { CITADEL_KEYSTORE: 'file' };

describe('--budget-tokens', () => {
  it.each([
    ['0', 'BUDGET_INVALID'],
    ['-5', 'USAGE_ERROR'],
    ['1.5', 'USAGE_ERROR'],
    ['lots', 'USAGE_ERROR'],
    ['12345678901', 'USAGE_ERROR'],
  ])('refuses %s with %s, before anything exists', async (value, code) => {
    const h = new ForkHarness(tempDir('citadel-budget-tokens-'));
    const run = await h.cli(['fork', 'start', 'x', '--repo', h.repo, '--runtimes', 'claude,codex', `--budget-tokens=${value}`, '--json']);
    expect(run.code).not.toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code } });
  });
});

describe('wire facts and the token budget in a fork', () => {
  it('freezes the token budget; a branch without a gateway has no wire facts and verifies; claiming some is wire_mismatch', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-wire-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    // Runtime-only: no provider gateway, so no wire (contained forks have one: see the next test).
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--budget-tokens', '50000', '--containment', 'runtime-only'], FILE_KEYS);
    expect(run.code, run.stderr).toBe(0);
    expect(h.readJson<{ budget: Record<string, unknown> }>(path.join(h.forkDir(doc.fork_id), 'contract.json')).budget).toEqual({
      max_duration_seconds: 1800,
      max_cost_usd: null,
      max_attempts: 1,
      max_tokens: 50000,
    });
    const file = h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json');
    const { receipt } = h.readJson<{ receipt: ExecutionReceipt }>(file);
    expect(receipt.wire).toBeUndefined();

    const compare = async (): Promise<ComparedBranch[]> => (JSON.parse((await h.cli(['fork', 'compare', doc.fork_id, '--json'], FILE_KEYS)).stdout) as { branches: ComparedBranch[] }).branches;
    const before = await compare();
    expect(before.map((b) => [b.branch_id, b.receipt_verified, b.reasons, b.wire, b.tokens_source])).toEqual([
      ['branch-claude', true, [], null, 'runtime_telemetry'],
      ['branch-codex', true, [], null, 'runtime_telemetry'],
    ]);

    const key = privateKeyFromText(readFileSync(path.join(h.root, 'keys', `${h.issuer}.key`), 'utf8').trim(), { issuerId: h.issuer, store: 'test' });
    writeFileSync(file, JSON.stringify(signEnvelope({ ...receipt, wire: wireFactsOf([]) }, key)));
    expect((await compare()).map((b) => [b.branch_id, b.receipt_verified, b.reasons])).toEqual([
      ['branch-claude', false, ['wire_mismatch']],
      ['branch-codex', true, []],
    ]);
  });

  it('a contained branch ran through its gateway: its receipt has wire facts (none seen: the simulated runtimes call no provider), and dropping them is wire_mismatch', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-wire-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex'], FILE_KEYS);
    expect(run.code, run.stderr).toBe(0);
    const file = h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json');
    const { receipt } = h.readJson<{ receipt: ExecutionReceipt }>(file);
    expect(receipt.wire).toEqual(wireFactsOf([]));
    const key = privateKeyFromText(readFileSync(path.join(h.root, 'keys', `${h.issuer}.key`), 'utf8').trim(), { issuerId: h.issuer, store: 'test' });
    const withoutWire: Partial<ExecutionReceipt> = { ...receipt };
    delete withoutWire.wire;
    writeFileSync(file, JSON.stringify(signEnvelope(withoutWire, key)));
    const compared = JSON.parse((await h.cli(['fork', 'compare', doc.fork_id, '--json'], FILE_KEYS)).stdout) as { branches: ComparedBranch[] };
    expect(compared.branches.map((b) => [b.branch_id, b.receipt_verified, b.reasons])).toEqual([
      ['branch-claude', false, ['wire_mismatch']],
      ['branch-codex', true, []],
    ]);
  });

  it('fork status shows the egress refusals of each branch, alike ones counted once, in text and JSON', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-wire-'));
    await h.simulate({ claude: { edits: [] }, codex: { edits: [] } });
    const { doc } = await h.startJson(['--runtimes', 'claude,codex'], FILE_KEYS);
    const denial = { host: '127.0.0.1', port: 11434, reason: 'path_not_allowed', method: 'POST', path: '/api/pull' };
    writeFileSync(h.attemptFile(doc.fork_id, 'branch-codex', 'egress-denials.jsonl'), `${JSON.stringify(denial)}\n${JSON.stringify(denial)}\nnot a denial\n`);
    const json = JSON.parse((await h.cli(['fork', 'status', doc.fork_id, '--json'], FILE_KEYS)).stdout) as { egress_refusals?: unknown };
    expect(json.egress_refusals).toEqual({ 'branch-codex': [{ ...denial, count: 2 }] });
    const text = (await h.cli(['fork', 'status', doc.fork_id], FILE_KEYS)).stdout;
    expect(text).toContain('    refused: path_not_allowed POST 127.0.0.1:11434/api/pull (x2)');
  });

  it('a fork started without --budget-tokens has no token budget in its contract', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-wire-'));
    await h.simulate({ claude: { edits: [] }, codex: { edits: [] } });
    const { doc } = await h.startJson(['--runtimes', 'claude,codex', '--detach'], FILE_KEYS);
    expect(Object.keys(h.readJson<{ budget: Record<string, unknown> }>(path.join(h.forkDir(doc.fork_id), 'contract.json')).budget).sort()).toEqual(['max_attempts', 'max_cost_usd', 'max_duration_seconds']);
  });
});
