/**
 * Issue 15 acceptance: a real (simulated-runtime) fork, selected and landed, is attested by
 * `citadel fork attest`; `citadel verify` checks the bundle in a process whose CITADEL_HOME is
 * empty; an implementation that is not Citadel's (Debian's python3-securesystemslib) verifies the
 * same envelopes with the exported PEM; and each tamper makes `citadel verify` exit 1 with its code.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { REPO_ROOT, runCli, type CliRun } from '../../support/run-cli';
import { BUILT_SUPERVISOR } from '../../support/service-context';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { createMissionControlService } from '../../../main/mission-control/service';

// Debian's interpreter, where apt installs python3-securesystemslib (a pyenv shim may come first on PATH).
const DEBIAN_PYTHON = '/usr/bin/python3';
const VERIFY_DSSE = path.join(REPO_ROOT, 'test', 'support', 'verify-dsse.py');
const EXECUTORS = {
  schema_version: 1,
  executors: [
    { profile_id: 'claude', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
    { profile_id: 'codex', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
  ],
};

interface Envelope {
  payload: string;
  payloadType: string;
  signatures: { keyid: string; sig: string }[];
}
interface Verification {
  verified: boolean;
  key_id: string | null;
  signer: string;
  fork_id: string | null;
  envelopes: { line: number; predicate_type: string; subjects: { name: string; digest: { gitCommit: string } }[]; facts: string[] }[];
  proof: string;
  replay: string;
  failure: { code: string } | null;
}

let base: string;
let h: ForkHarness;
let forkId: string;
let otherForkId: string;
const files = { bundle: '', other: '', pem: '', proof: '', replay: '' };
let keyDigest: string;
let emptyHome: string;

async function startFork(): Promise<string> {
  const { run, doc } = await h.startJson(['--executors', path.join(base, 'executors.json'), '--workflow', h.workflowFile]);
  expect(run.code, run.stderr).toBe(0);
  expect(doc.state).toBe('ready');
  return doc.fork_id;
}

async function ok(args: string[]): Promise<CliRun> {
  const run = await h.cli(args);
  expect(run.code, `${args.join(' ')}: ${run.stdout}${run.stderr}`).toBe(0);
  return run;
}

/** `citadel verify` as someone without the fork root runs it: an empty CITADEL_HOME, no issuer, no keychain. */
function verify(args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: emptyHome, CITADEL_HOME: emptyHome };
  return runCli(['verify', ...args], { env, cwd: emptyHome });
}

function jsonOf(run: CliRun): Verification & { error?: { code: string; details?: { verification: Verification } } } {
  return JSON.parse(run.stdout) as Verification & { error?: { code: string; details?: { verification: Verification } } };
}

const envelopesOf = (file: string): Envelope[] => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Envelope);
const writeBundle = (name: string, envelopes: readonly Envelope[]): string => {
  const file = path.join(base, name);
  writeFileSync(file, envelopes.map((e) => `${JSON.stringify(e)}\n`).join(''));
  return file;
};

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-attest-'));
  emptyHome = mkdtempSync(path.join(tmpdir(), 'citadel-attest-empty-'));
  h = new ForkHarness(base);
  writeFileSync(path.join(base, 'executors.json'), JSON.stringify(EXECUTORS));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  forkId = await startFork();
  await ok(['fork', 'select', forkId, 'branch-claude', '--reason', 'its verifier passed', '--json']);
  const plan = JSON.parse((await ok(['fork', 'land', forkId, '--json'])).stdout) as { token: string };
  await ok(['fork', 'land', forkId, '--confirm', plan.token, '--json']);
  otherForkId = await startFork();

  Object.assign(files, { bundle: path.join(base, 'fork.intoto.jsonl'), other: path.join(base, 'other.intoto.jsonl'), pem: path.join(base, 'issuer.pem'), proof: path.join(base, 'proof.json'), replay: path.join(base, 'replay.json') });
  await ok(['fork', 'attest', forkId, '--output', files.bundle]);
  await ok(['fork', 'attest', otherForkId, '--output', files.other]);
  await ok(['fork', 'proof', forkId, '--output', files.proof]);
  await ok(['fork', 'replay', forkId, '--output', files.replay]);
  const exported = JSON.parse((await ok(['keys', 'export', '--json'])).stdout) as { public_key_pem: string; public_key_digest: string };
  writeFileSync(files.pem, exported.public_key_pem);
  keyDigest = exported.public_key_digest;
}, 300_000);

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  rmSync(emptyHome, { recursive: true, force: true });
});

describe('citadel fork attest and citadel verify', () => {
  it('attests a landed fork deterministically, and verifies it offline with an empty CITADEL_HOME', async () => {
    const again = await ok(['fork', 'attest', forkId]);
    expect(again.stdout).toBe(readFileSync(files.bundle, 'utf8'));

    const contract = h.readJson<{ signer_public_key_digest: string }>(path.join(h.forkDir(forkId), 'contract.json'));
    for (const envelope of envelopesOf(files.bundle)) expect(envelope.signatures).toEqual([{ keyid: contract.signer_public_key_digest, sig: expect.any(String) }]);
    expect(keyDigest).toBe(contract.signer_public_key_digest);

    const run = await verify([files.bundle, '--public-key', files.pem, '--proof', files.proof, '--replay', files.replay, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = jsonOf(run);
    expect(report).toMatchObject({ verified: true, signer: 'verified', key_id: keyDigest, fork_id: forkId, proof: 'matched', replay: 'matched', failure: null });
    expect(readdirSync(emptyHome)).toEqual([]);

    const commit = (ref: string): string => h.gitIn(h.repo, 'rev-parse', ref);
    const claude = { name: `citadel/${forkId}/branch-claude`, digest: { gitCommit: commit(`refs/heads/citadel/${forkId}/branch-claude`) } };
    const codex = { name: `citadel/${forkId}/branch-codex`, digest: { gitCommit: commit(`refs/heads/citadel/${forkId}/branch-codex`) } };
    const merge = { name: `citadel/${forkId}/landed`, digest: { gitCommit: commit('HEAD') } };
    expect(h.gitIn(h.repo, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toContain(claude.digest.gitCommit);
    expect(report.envelopes.map((e) => [e.predicate_type, e.subjects])).toEqual([
      // Contained branches ran through the provider gateway: their predicate carries the wire facts.
      ['urn:citadel:attestation:branch-result:v2', [claude]],
      ['urn:citadel:attestation:branch-result:v2', [codex]],
      ['urn:citadel:attestation:fork-decision:v1', [claude, codex, merge]],
    ]);
    expect(report.envelopes[0]?.facts).toEqual(expect.arrayContaining(['status passed', expect.stringMatching(/^verifier passed/)]));
    expect(report.envelopes[1]?.facts).toEqual(expect.arrayContaining([expect.stringMatching(/^status failed/)]));
    expect(report.envelopes[2]?.facts).toEqual(expect.arrayContaining([expect.stringMatching(/^selected branch-claude/), expect.stringMatching(`as merge commit ${merge.digest.gitCommit}$`)]));

    const text = await verify([files.bundle, '--public-key', files.pem]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('verified');
  });

  it('without --public-key names the key id, says the signer is unverified, and never says verified', async () => {
    const run = await verify([files.bundle]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ATTESTATION_SIGNER_UNVERIFIED');
    expect(run.stdout).toContain(`key id ${keyDigest}: signer unverified`);
    expect(run.stdout.split('\n')).not.toContain('verified');
    const json = jsonOf(await verify([files.bundle, '--json']));
    expect(json.error?.code).toBe('ATTESTATION_SIGNER_UNVERIFIED');
    expect(json.error?.details?.verification).toMatchObject({ verified: false, signer: 'unverified', key_id: keyDigest });
  });

  it('verifies with an implementation that is not Citadel\'s: python3-securesystemslib and the exported PEM', () => {
    const out = execFileSync(DEBIAN_PYTHON, [VERIFY_DSSE, files.bundle, files.pem], { encoding: 'utf8' });
    expect(out).toContain('3 envelopes verified');
    // The same verifier refuses a changed payload, so its pass above means something.
    const [first, ...rest] = envelopesOf(files.bundle);
    const changed = writeBundle('python-tampered.intoto.jsonl', [{ ...first!, payload: flipPayload(first!.payload) }, ...rest]);
    const refused = spawnSync(DEBIAN_PYTHON, [VERIFY_DSSE, changed, files.pem], { encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('signature does not verify');
  });

  const flipPayload = (payload: string): string => {
    const bytes = Buffer.from(payload, 'base64');
    // A byte inside the predicate's text: the statement stays JSON, only the signature notices.
    const at = bytes.indexOf('"status":"passed"') + '"status":"p'.length;
    bytes[at] = 'P'.charCodeAt(0);
    return bytes.toString('base64');
  };
  const flipSig = (sig: string): string => {
    const bytes = Buffer.from(sig, 'base64');
    bytes[10] = (bytes[10] ?? 0) ^ 0x01;
    return bytes.toString('base64');
  };

  it.each([
    ['a payload byte', 'ATTESTATION_SIGNATURE_INVALID', (es: Envelope[]) => [{ ...es[0]!, payload: flipPayload(es[0]!.payload) }, ...es.slice(1)]],
    ['a signature byte', 'ATTESTATION_SIGNATURE_INVALID', (es: Envelope[]) => [{ ...es[0]!, signatures: [{ ...es[0]!.signatures[0]!, sig: flipSig(es[0]!.signatures[0]!.sig) }] }, ...es.slice(1)]],
    ['the keyid', 'ATTESTATION_KEYID_MISMATCH', (es: Envelope[]) => [es[0]!, { ...es[1]!, signatures: [{ ...es[1]!.signatures[0]!, keyid: `sha256:${'0'.repeat(64)}` }] }, ...es.slice(2)]],
    ['the payloadType', 'ATTESTATION_PAYLOAD_TYPE_UNSUPPORTED', (es: Envelope[]) => [...es.slice(0, 2), { ...es[2]!, payloadType: 'application/json' }]],
    ['an envelope swapped in from another fork', 'ATTESTATION_BUNDLE_INCONSISTENT', (es: Envelope[]) => [envelopesOf(files.other)[0]!, ...es.slice(1)]],
    ['the decision dropped', 'ATTESTATION_BUNDLE_INCONSISTENT', (es: Envelope[]) => es.slice(0, 2)],
    ['a branch envelope repeated', 'ATTESTATION_BUNDLE_INCONSISTENT', (es: Envelope[]) => [es[0]!, es[0]!, es[2]!]],
  ])('refuses %s with %s', async (what, code, tamper) => {
    const original = envelopesOf(files.bundle);
    const file = writeBundle(`tampered-${what.replaceAll(' ', '-')}.intoto.jsonl`, tamper(original));
    const run = await verify([file, '--public-key', files.pem, '--json']);
    expect(run.code, run.stdout).toBe(1);
    expect(jsonOf(run).error?.code).toBe(code);
    expect(jsonOf(run).error?.details?.verification.verified).toBe(false);
  });

  it('keys export prints the PEM alone on stdout and its key id on stderr, and never creates a key', async () => {
    const text = await ok(['keys', 'export']);
    expect(text.stdout).toBe(readFileSync(files.pem, 'utf8'));
    expect(text.stdout).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);
    expect(text.stderr).toContain(`key id ${keyDigest}`);
    const none = await h.cli(['keys', 'export', '--issuer', 'nobody-here', '--json']);
    expect(none.code).toBe(1);
    expect(jsonOf(none).error?.code).toBe('SIGNING_KEY_NOT_FOUND');
  });

  it('refuses to attest a fork none of whose receipts verifies here', async () => {
    // The file key store under this fork root holds no key: the fork's signer is untrusted, so nothing verifies.
    const output = path.join(base, 'untrusted.intoto.jsonl');
    const run = await h.cli(['fork', 'attest', forkId, '--output', output, '--json'], { CITADEL_KEYSTORE: 'file' });
    expect(run.code, run.stdout).toBe(1);
    expect(jsonOf(run).error?.code).toBe('ATTESTATION_NOTHING_VERIFIED');
    expect(existsSync(output)).toBe(false);
  });

  it('refuses a proof or replay whose digest is not the attested one', async () => {
    const proof = JSON.parse(readFileSync(files.proof, 'utf8')) as { counts: { branches: number } };
    const editedProof = path.join(base, 'edited-proof.json');
    writeFileSync(editedProof, JSON.stringify({ ...proof, counts: { ...proof.counts, branches: proof.counts.branches + 1 } }));
    const replay = JSON.parse(readFileSync(files.replay, 'utf8')) as { comparison: { recommended_branch_id: string | null } };
    const editedReplay = path.join(base, 'edited-replay.json');
    writeFileSync(editedReplay, JSON.stringify({ ...replay, comparison: { ...replay.comparison, recommended_branch_id: 'branch-codex' } }));
    const cases: [string[], string][] = [
      [['--proof', editedProof], 'ATTESTATION_PROOF_MISMATCH'],
      [['--proof', files.replay], 'ATTESTATION_PROOF_MISMATCH'],
      [['--replay', editedReplay], 'ATTESTATION_REPLAY_MISMATCH'],
      [['--replay', files.proof], 'ATTESTATION_REPLAY_MISMATCH'],
    ];
    for (const [args, code] of cases) {
      const run = await verify([files.bundle, '--public-key', files.pem, ...args, '--json']);
      expect(run.code, `${args.join(' ')}: ${run.stdout}`).toBe(1);
      expect(jsonOf(run).error?.code).toBe(code);
    }
  });

  it('Mission Control shows the issuer PEM in Settings and checks a bundle offline, per subject, with the exact failure', async () => {
    // The CLI above signed with the harness's key store (the Secret Service here), so the service reads that one too.
    const ctx = await openOrchestratorContext({ env: h.env(), supervisorScript: BUILT_SUPERVISOR });
    const service = createMissionControlService(ctx, { log: () => undefined });
    const settings = await service.handle('settings', {});
    expect(settings.ok && settings.value.public_key_pem).toBe(readFileSync(files.pem, 'utf8'));

    const bundle = readFileSync(files.bundle, 'utf8');
    const pem = readFileSync(files.pem, 'utf8');
    const checked = await service.handle('verifyAttestation', { bundle, public_key_pem: pem });
    expect(checked).toMatchObject({ ok: true, value: { verified: true, signer: 'verified', fork_id: forkId, failure: null } });
    expect(checked.ok && checked.value.envelopes.map((e) => e.predicate_type)).toEqual([
      'urn:citadel:attestation:branch-result:v2',
      'urn:citadel:attestation:branch-result:v2',
      'urn:citadel:attestation:fork-decision:v1',
    ]);
    // Without a key nothing is verified; with a changed payload the exact failure is named.
    const unkeyed = await service.handle('verifyAttestation', { bundle, public_key_pem: null });
    expect(unkeyed).toMatchObject({ ok: true, value: { verified: false, signer: 'unverified', failure: { code: 'ATTESTATION_SIGNER_UNVERIFIED' } } });
    const [first, ...rest] = envelopesOf(files.bundle);
    const flipped = { ...first!, payload: Buffer.from(Buffer.from(first!.payload, 'base64').toString('utf8').replace('"_type"', '"_type" ')).toString('base64') };
    const tampered = await service.handle('verifyAttestation', { bundle: [flipped, ...rest].map((e) => `${JSON.stringify(e)}\n`).join(''), public_key_pem: pem });
    expect(tampered).toMatchObject({ ok: true, value: { verified: false, failure: { code: 'ATTESTATION_SIGNATURE_INVALID', line: 1 } } });
  });
});
