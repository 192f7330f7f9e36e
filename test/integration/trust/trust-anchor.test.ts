/**
 * The trust anchor (issue 12, item 1) and the bound branch set and fork id (item 2), through the
 * real CLI as a child process over real forks run with simulated runtimes.
 *
 * The forgery is the one the red team landed: every signed file of a fork re-signed end to end with
 * a fresh ed25519 key, a verifier-failed branch turned into a pass. Its control is the same forged
 * fork copied to a fork root whose key store holds the forger's key: there it verifies and is
 * recommended, so the chain is complete and the local key store is the only thing refusing it.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateKeyToText } from '../../../main/evidence/keys/private-key-text';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import type { CliRun } from '../../support/run-cli';
import { resignFork } from '../../support/resign-fork';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const FILE_STORE = { CITADEL_KEYSTORE: 'file' } as const;

interface Compared {
  fork_id: string;
  outcome: string;
  recommended_branch_id: string | null;
  reasons: string[];
  branches: { branch_id: string; profile_id: string; comparable: boolean; receipt_verified: boolean; status: string | null; reasons: string[] }[];
}
interface Proof {
  fork_id: string;
  counts: { branches: number; comparable: number; verified_receipts: number };
  comparison: { outcome: string; recommended_branch_id: string | null };
  replay: { branches: { branch_id: string; receipt_verified: boolean; verification_reasons: string[] }[] };
}
interface RecordDoc {
  fork_id: string;
  contract_digest: string;
  branches: { branch_id: string; attempt: number; state: string; failure_code: string | null; git_branch: string }[];
}

function json<T>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`no JSON (exit ${String(run.code)}):\n${run.stdout}\n${run.stderr}`);
  }
}

const EXECUTORS = (profiles: { id: string; runtime: 'claude' | 'codex'; model: string }[]): string =>
  JSON.stringify({
    schema_version: 1,
    executors: profiles.map((p) => ({ profile_id: p.id, runtime: p.runtime, model: p.model, local_provider: null, adapter_options: {} })),
  });
const TWO = [
  { id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5' },
  { id: 'codex-mini', runtime: 'codex', model: 'gpt-5.1-codex-mini' },
] as const;

/** A ready fork: claude fixes the bug (passes), codex does not (VERIFIER_FAILED). */
async function readyFork(
  h: ForkHarness,
  options: { schema: 1 | 2; env?: Record<string, string>; profiles?: readonly { id: string; runtime: 'claude' | 'codex'; model: string }[] },
): Promise<string> {
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  let selection = ['--runtimes', 'claude,codex'];
  if (options.schema === 2) {
    const file = path.join(h.base, `executors-${Date.now()}-${Math.random()}.json`);
    writeFileSync(file, EXECUTORS([...(options.profiles ?? TWO)]));
    selection = ['--executors', file];
  }
  const { run, doc } = await h.startJson([...selection, '--workflow', h.workflowFile], options.env ?? {});
  expect(run.code, run.stderr).toBe(0);
  expect(doc.state).toBe('ready');
  return doc.fork_id;
}

const writeJson = (file: string, value: unknown): void => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** The fork copied to a fresh fork root whose file key store holds `key` as the harness issuer's key. */
function underKey(h: ForkHarness, forkId: string, key: KeyObject): Record<string, string> {
  const home = tempDir('citadel-trust-other-');
  cpSync(h.forkDir(forkId), path.join(home, 'forks', forkId), { recursive: true });
  mkdirSync(path.join(home, 'keys'), { mode: 0o700 });
  chmodSync(path.join(home, 'keys'), 0o700);
  writeFileSync(path.join(home, 'keys', `${h.issuer}.key`), `${privateKeyToText(key)}\n`, { mode: 0o600 });
  return { CITADEL_HOME: home, ...FILE_STORE };
}

const compare = async (h: ForkHarness, forkId: string, env: Record<string, string> = {}): Promise<Compared> => {
  const run = await h.cli(['fork', 'compare', forkId, '--json'], env);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return json<Compared>(run);
};
const proof = async (h: ForkHarness, forkId: string, env: Record<string, string> = {}): Promise<Proof> => {
  const run = await h.cli(['fork', 'proof', forkId], env);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return json<Proof>(run);
};

function expectUntrusted(c: Compared, branches: number): void {
  expect(c.outcome).toBe('insufficient-evidence');
  expect(c.recommended_branch_id).toBeNull();
  expect(c.branches).toHaveLength(branches);
  for (const b of c.branches) expect(b).toMatchObject({ comparable: false, receipt_verified: false, status: null, reasons: expect.arrayContaining(['signer_untrusted']) });
  expect(c.reasons[0]).toMatch(/^signer_untrusted: the fork is signed by key [0-9a-f]{16}/);
}

describe('a fork verifies only against a key this machine trusts', () => {
  it('schema 2 re-signed end to end with a fresh key: untrusted in compare and proof, select and land refused; the forger key trusted is the control', async () => {
    const h = new ForkHarness(tempDir('citadel-trust-s2-'));
    const forkId = await readyFork(h, { schema: 2, env: FILE_STORE });
    const genuine = await compare(h, forkId, FILE_STORE);
    expect(genuine).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude-sonnet' });
    expect(genuine.branches.every((b) => b.receipt_verified)).toBe(true);
    // Selected and landable while genuine: the landing plan issues a token.
    expect((await h.cli(['fork', 'select', forkId, 'branch-claude-sonnet', '--reason', 'passed', '--json'], FILE_STORE)).code).toBe(0);
    const plan = json<{ token: string | null }>(await h.cli(['fork', 'land', forkId, '--json'], FILE_STORE));
    expect(plan.token).toMatch(/^[0-9a-f]{12}$/);
    const head = h.gitIn(h.repo, 'rev-parse', 'HEAD');

    const forger = generateKeyPairSync('ed25519').privateKey;
    resignFork(h.forkDir(forkId), forger, { 'branch-claude-sonnet': 'failed', 'branch-codex-mini': 'passed' });

    const forged = await compare(h, forkId, FILE_STORE);
    expectUntrusted(forged, 2);
    expect(forged.reasons[0]).toContain('not by the issuer key this machine holds');
    const human = await h.cli(['fork', 'compare', forkId], FILE_STORE);
    expect(human.stdout).toMatch(/branch-codex-mini \(codex\)\s+NOT comparable\s+receipt NOT verified\s+signer UNTRUSTED/);
    expect(human.stdout).toContain('signer_untrusted: the fork is signed by key');

    const report = await proof(h, forkId, FILE_STORE);
    expect(report.counts).toMatchObject({ branches: 2, comparable: 0, verified_receipts: 0 });
    expect(report.comparison).toEqual({ outcome: 'insufficient-evidence', recommended_branch_id: null });
    for (const b of report.replay.branches) expect(b).toMatchObject({ receipt_verified: false, verification_reasons: expect.arrayContaining(['signer_untrusted']) });

    const select = await h.cli(['fork', 'select', forkId, 'branch-codex-mini', '--reason', 'forged pass', '--json'], FILE_STORE);
    expect(select.code).toBe(1);
    expect(json<{ error: { code: string } }>(select).error.code).toBe('SELECTION_REFUSED');
    // The token issued before the forgery is refused at confirmation: the genuine selection's
    // signature does not hold under the substituted signer, so no plan stands on it.
    const landed = await h.cli(['fork', 'land', forkId, '--confirm', plan.token ?? '', '--json'], FILE_STORE);
    expect(landed.code).toBe(1);
    expect(json<{ error: { code: string } }>(landed).error.code).toBe('SELECTION_SIGNATURE_INVALID');
    const replan = await h.cli(['fork', 'land', forkId, '--json'], FILE_STORE);
    expect(replan.code).toBe(1);
    expect(json<{ error: { code: string } }>(replan).error.code).toBe('SELECTION_SIGNATURE_INVALID');
    expect(h.gitIn(h.repo, 'rev-parse', 'HEAD')).toBe(head);

    // Control: where the forger's key is the local issuer key, the same files verify and the forged pass is recommended.
    const trusted = await compare(h, forkId, underKey(h, forkId, forger));
    expect(trusted.reasons.some((r) => r.startsWith('signer_untrusted'))).toBe(false);
    expect(trusted.branches.every((b) => b.receipt_verified && b.reasons.length === 0)).toBe(true);
    expect(trusted).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-codex-mini' });
  });

  it('schema 1 (the contract binds no key), with the real Secret Service: a fresh key is untrusted; the genuine fork verifies', async () => {
    const h = new ForkHarness(tempDir('citadel-trust-s1-'));
    // No CITADEL_KEYSTORE: the OS keychain (Secret Service under with-secret-service.sh) holds the key.
    const forkId = await readyFork(h, { schema: 1 });
    expect(await compare(h, forkId)).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude' });
    // A keychain that does not answer proves nothing either: untrusted, saying why, never an error.
    const unreachable = await compare(h, forkId, { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' });
    expectUntrusted(unreachable, 2);
    expect(unreachable.reasons[0]).toContain('the key store could not be read (KEYCHAIN_UNAVAILABLE');
    const forger = generateKeyPairSync('ed25519').privateKey;
    resignFork(h.forkDir(forkId), forger, { 'branch-claude': 'failed', 'branch-codex': 'passed' });
    expectUntrusted(await compare(h, forkId), 2);
    expect((await proof(h, forkId)).counts).toMatchObject({ branches: 2, comparable: 0, verified_receipts: 0 });
    // Control: under the forger's key the forged chain is complete, and its forged pass is recommended.
    const trusted = await compare(h, forkId, underKey(h, forkId, forger));
    expect(trusted).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-codex' });
  });

  it('with no local key at all every fork is untrusted, says so, and reading creates no key', async () => {
    const h = new ForkHarness(tempDir('citadel-trust-nokey-'));
    const forkId = await readyFork(h, { schema: 2, env: FILE_STORE });
    const keys = path.join(h.root, 'keys');
    renameSync(keys, `${keys}.away`);
    const c = await compare(h, forkId, FILE_STORE);
    expectUntrusted(c, 2);
    expect(c.reasons[0]).toContain(`the file key store holds no key for ${h.issuer}`);
    expect((await proof(h, forkId, FILE_STORE)).counts.verified_receipts).toBe(0);
    expect(existsSync(keys)).toBe(false);
    // Control: the key back, the same fork verifies.
    renameSync(`${keys}.away`, keys);
    expect(await compare(h, forkId, FILE_STORE)).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude-sonnet' });
  });
});

describe('the fork id and the branch set are bound', () => {
  it("fork A's directory copied over fork B is not verified under B's id", async () => {
    const h = new ForkHarness(tempDir('citadel-trust-copy-'));
    const a = await readyFork(h, { schema: 2, env: FILE_STORE });
    const b = await readyFork(h, { schema: 2, env: FILE_STORE });
    expect(await compare(h, b, FILE_STORE)).toMatchObject({ outcome: 'recommend' });
    rmSync(h.forkDir(b), { recursive: true });
    cpSync(h.forkDir(a), h.forkDir(b), { recursive: true });
    const copied = await compare(h, b, FILE_STORE);
    expect(copied).toMatchObject({ fork_id: b, outcome: 'insufficient-evidence', recommended_branch_id: null });
    for (const branch of copied.branches) expect(branch).toMatchObject({ receipt_verified: false, reasons: expect.arrayContaining(['fork_id_mismatch']) });
    expect((await proof(h, b, FILE_STORE)).counts.verified_receipts).toBe(0);

    // The copied record renamed to B (git branches too): every receipt and wrapper still names A.
    const file = path.join(h.forkDir(b), 'fork.json');
    const record = h.readJson<RecordDoc>(file);
    writeJson(file, { ...record, fork_id: b, branches: record.branches.map((x) => ({ ...x, git_branch: `citadel/${b}/${x.branch_id}` })) });
    const renamed = await compare(h, b, FILE_STORE);
    expect(renamed.outcome).toBe('insufficient-evidence');
    for (const branch of renamed.branches) {
      expect(branch.receipt_verified).toBe(false);
      expect(branch.reasons).toEqual(expect.arrayContaining(['receipt_binding_mismatch', 'wrapper_binding_mismatch']));
    }
    // A itself is untouched.
    expect(await compare(h, a, FILE_STORE)).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude-sonnet' });
  });

  it('a branch dropped from or duplicated in fork.json never changes the counts, and is refused with branch_set_mismatch', async () => {
    const h = new ForkHarness(tempDir('citadel-trust-set-'));
    // Two claude profiles pass (a tie), codex fails.
    const profiles = [{ id: 'claude-a', runtime: 'claude', model: 'claude-sonnet-4-5' }, { id: 'claude-b', runtime: 'claude', model: 'claude-sonnet-4-5' }, TWO[1]] as const;
    const forkId = await readyFork(h, { schema: 2, env: FILE_STORE, profiles });
    const pristine = await compare(h, forkId, FILE_STORE);
    expect(pristine).toMatchObject({ outcome: 'tie', recommended_branch_id: null });
    expect(pristine.branches.map((b) => b.branch_id)).toEqual(['branch-claude-a', 'branch-claude-b', 'branch-codex-mini']);
    const file = path.join(h.forkDir(forkId), 'fork.json');
    const record = h.readJson<RecordDoc>(file);
    const edits: [string, RecordDoc['branches']][] = [
      // The red team's edit: dropping one of the tied branches turned the tie into a recommendation.
      ['dropped', record.branches.filter((b) => b.branch_id !== 'branch-claude-b')],
      ['duplicated', [...record.branches, ...record.branches.filter((b) => b.branch_id === 'branch-claude-a')]],
      ['reordered', [...record.branches].reverse()],
    ];
    for (const [what, branches] of edits) {
      writeJson(file, { ...record, branches });
      const c = await compare(h, forkId, FILE_STORE);
      const p = await proof(h, forkId, FILE_STORE);
      // Always the signed set: three branches, in its order, once each.
      expect(c.branches.map((b) => b.branch_id), what).toEqual(['branch-claude-a', 'branch-claude-b', 'branch-codex-mini']);
      expect(p.counts.branches, what).toBe(3);
      if (what === 'reordered') {
        expect(c, what).toEqual(pristine);
        continue;
      }
      expect(c.outcome, what).toBe('insufficient-evidence');
      expect(p.counts, what).toMatchObject({ comparable: 0, verified_receipts: 0 });
      for (const b of c.branches) expect(b.reasons, what).toContain('branch_set_mismatch');
    }
    writeJson(file, record);
    expect(await compare(h, forkId, FILE_STORE)).toEqual(pristine);
  });
});
