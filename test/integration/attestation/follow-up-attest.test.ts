/**
 * Issue 32, evidence: a follow-up fork (`fork start --from PARENT/branch-claude`) carries its
 * lineage into replay and proof as ids and digests only, its attestation names the parent branch's
 * result commit as a material (branch-result:v3, fork-decision:v2), and `citadel verify CHILD
 * --parent PARENT` checks the link offline, with an empty CITADEL_HOME; another fork's bundle, a
 * parent bundle that no longer attests the branch, and a first fork's bundle are each refused with
 * ATTESTATION_PARENT_MISMATCH.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_CODEX_EXECUTORS as EXECUTORS, FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { runCli, type CliRun } from '../../support/run-cli';

const PARENT_OBJECTIVE = 'Fix the sum function';
const CHILD_OBJECTIVE = 'Also export a difference function from src/diff.js';
const DIFF = 'export function diff(a, b) {\n  return a - b;\n}\n';

interface Subject {
  name: string;
  digest: { gitCommit: string };
}
interface Verification {
  verified: boolean;
  fork_id: string | null;
  envelopes: { line: number; predicate_type: string; subjects: Subject[]; facts: string[] }[];
  parent?: unknown;
  failure: { code: string; message: string } | null;
  error?: { code: string; message: string; details?: { verification: Verification } };
}
interface Statement {
  predicateType: string;
  subject: Subject[];
  predicate: { contract: { lineage?: Record<string, string> }; branch?: { base_revision: string }; materials?: Subject[] };
}

let base: string;
let emptyHome: string;
let h: ForkHarness;
let parentId: string;
let otherId: string;
let childId: string;
let parentResult: string;
const files = { parent: '', other: '', child: '', pem: '', childReplay: '', childProof: '', parentWithoutBranch: '' };

async function ok(args: string[]): Promise<CliRun> {
  const run = await h.cli(args);
  expect(run.code, `${args.join(' ')}: ${run.stdout}${run.stderr}`).toBe(0);
  return run;
}

async function firstFork(): Promise<string> {
  const { run, doc } = await h.startJson(['--executors', path.join(base, 'executors.json'), '--workflow', h.workflowFile]);
  expect(run.code, run.stderr).toBe(0);
  expect(doc.state).toBe('ready');
  return doc.fork_id;
}

/** `citadel verify` as someone without the fork root runs it. */
async function verify(args: string[]): Promise<{ run: CliRun; json: Verification }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: emptyHome, CITADEL_HOME: emptyHome };
  const run = await runCli(['verify', ...args, '--json'], { env, cwd: emptyHome });
  return { run, json: JSON.parse(run.stdout) as Verification };
}

const statementsOf = (file: string): Statement[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(Buffer.from((JSON.parse(line) as { payload: string }).payload, 'base64').toString('utf8')) as Statement);

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-follow-up-attest-'));
  emptyHome = mkdtempSync(path.join(tmpdir(), 'citadel-follow-up-empty-'));
  h = new ForkHarness(base);
  writeFileSync(path.join(base, 'executors.json'), JSON.stringify(EXECUTORS));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  parentId = await firstFork();
  otherId = await firstFork();
  parentResult = h.gitIn(h.repo, 'rev-parse', `refs/heads/citadel/${parentId}/branch-claude`);

  await h.simulate({ claude: { edits: [{ path: 'src/diff.js', content: DIFF }] }, codex: { edits: [{ path: 'src/diff.js', content: DIFF }] } });
  const started = await h.cli(['fork', 'start', CHILD_OBJECTIVE, '--repo', h.repo, '--from', `${parentId}/branch-claude`, '--workflow', h.workflowFile, '--json']);
  expect(started.code, started.stdout + started.stderr).toBe(0);
  const doc = JSON.parse(started.stdout) as { fork_id: string; state: string };
  expect(doc.state).toBe('ready');
  childId = doc.fork_id;

  for (const [name, file] of [['parent', 'parent.intoto.jsonl'], ['other', 'other.intoto.jsonl'], ['child', 'child.intoto.jsonl'], ['pem', 'issuer.pem'], ['childReplay', 'child-replay.json'], ['childProof', 'child-proof.json'], ['parentWithoutBranch', 'parent-without-claude.intoto.jsonl']] as const) {
    files[name] = path.join(base, file);
  }
  await ok(['fork', 'attest', parentId, '--output', files.parent]);
  await ok(['fork', 'attest', otherId, '--output', files.other]);
  await ok(['fork', 'attest', childId, '--output', files.child]);
  await ok(['fork', 'replay', childId, '--output', files.childReplay]);
  await ok(['fork', 'proof', childId, '--output', files.childProof]);
  writeFileSync(files.pem, (JSON.parse((await ok(['keys', 'export', '--json'])).stdout) as { public_key_pem: string }).public_key_pem);

  // The parent's branch-claude receipt gone: the parent's bundle attested now names only branch-codex.
  const receipt = h.attemptFile(parentId, 'branch-claude', 'execution-receipt.json');
  renameSync(receipt, `${receipt}.away`);
  try {
    await ok(['fork', 'attest', parentId, '--output', files.parentWithoutBranch]);
  } finally {
    renameSync(`${receipt}.away`, receipt);
  }
}, 600_000);

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  rmSync(emptyHome, { recursive: true, force: true });
});

describe("a follow-up fork's evidence", () => {
  it('replay and proof carry the lineage as ids and digests: no objective, no commit', async () => {
    const parentReplay = JSON.parse((await ok(['fork', 'replay', parentId])).stdout) as {
      contract: { contract_digest: string; objective_digest: string; signer_public_key_digest: string; lineage?: unknown };
      branches: { branch_id: string; execution_receipt_digest: string | null }[];
    };
    expect(parentReplay.contract.lineage).toBeUndefined();
    const replayText = readFileSync(files.childReplay, 'utf8');
    const replay = JSON.parse(replayText) as { contract: { lineage?: Record<string, string> } };
    expect(replay.contract.lineage).toEqual({
      parent_fork_id: parentId,
      parent_branch_id: 'branch-claude',
      parent_contract_digest: parentReplay.contract.contract_digest,
      parent_execution_receipt_digest: parentReplay.branches.find((b) => b.branch_id === 'branch-claude')?.execution_receipt_digest,
      parent_objective_digest: parentReplay.contract.objective_digest,
      parent_signer_public_key_digest: parentReplay.contract.signer_public_key_digest,
    });
    const proofText = readFileSync(files.childProof, 'utf8');
    expect((JSON.parse(proofText) as { replay: { contract: { lineage?: unknown } } }).replay.contract.lineage).toEqual(replay.contract.lineage);
    // The follow-up started from the parent branch's result, which neither artifact names.
    expect(h.readJson<{ base_revision: string }>(path.join(h.forkDir(childId), 'contract.json')).base_revision).toBe(parentResult);
    for (const text of [replayText, proofText]) {
      expect(text).not.toContain(PARENT_OBJECTIVE);
      expect(text).not.toContain(CHILD_OBJECTIVE);
      expect(text).not.toContain(parentResult);
      expect(text).not.toContain('parent_result_commit');
      // No commit id at all: a 40-hex token that is not part of a sha256 digest.
      expect(text).not.toMatch(/(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])/);
    }
  });

  it("the child's branch statements are v3, naming the parent's result commit as their material; a first fork keeps v2 and v1", () => {
    const material = { name: `citadel/${parentId}/branch-claude`, digest: { gitCommit: parentResult } };
    const child = statementsOf(files.child);
    expect(child.map((s) => s.predicateType)).toEqual(['urn:citadel:attestation:branch-result:v3', 'urn:citadel:attestation:branch-result:v3', 'urn:citadel:attestation:fork-decision:v2']);
    for (const statement of child.slice(0, 2)) {
      expect(statement.predicate.materials).toEqual([material]);
      expect(statement.predicate.branch?.base_revision).toBe(parentResult);
    }
    const lineage = JSON.parse(readFileSync(files.childReplay, 'utf8')) as { contract: { lineage: unknown } };
    for (const statement of child) expect(statement.predicate.contract.lineage).toEqual(lineage.contract.lineage);
    const parent = statementsOf(files.parent);
    expect(parent.map((s) => s.predicateType)).toEqual(['urn:citadel:attestation:branch-result:v2', 'urn:citadel:attestation:branch-result:v2', 'urn:citadel:attestation:fork-decision:v1']);
    for (const statement of parent) {
      expect(statement.predicate.contract.lineage).toBeUndefined();
      expect(statement.predicate.materials).toBeUndefined();
    }
  });

  it('verify CHILD --parent PARENT checks the link offline, and prints the lineage as facts', async () => {
    const { run, json } = await verify([files.child, '--public-key', files.pem, '--proof', files.childProof, '--replay', files.childReplay, '--parent', files.parent]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(json).toMatchObject({ verified: true, fork_id: childId, failure: null, parent: { linked: true, fork_id: parentId, branch_id: 'branch-claude', result_commit: parentResult } });
    expect(json.envelopes[0]?.facts).toContain(`follow-up of fork ${parentId}, branch branch-claude, from its result commit ${parentResult}`);
    expect(json.envelopes[2]?.facts).toContain(`follow-up of fork ${parentId}, branch branch-claude`);

    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: emptyHome, CITADEL_HOME: emptyHome };
    const text = await runCli(['verify', files.child, '--public-key', files.pem, '--parent', files.parent, '--parent-public-key', files.pem], { env, cwd: emptyHome });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`parent: fork ${parentId}, branch branch-claude, result commit ${parentResult}`);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('verified');
    // Without --parent the report has no parent block: earlier outputs keep their shape.
    const alone = await verify([files.child, '--public-key', files.pem]);
    expect(alone.run.code).toBe(0);
    expect(alone.json).not.toHaveProperty('parent');
    const stray = await verify([files.child, '--public-key', files.pem, '--parent-public-key', files.pem]);
    expect(stray.run.code).toBe(2);
    expect(stray.json.error?.code).toBe('USAGE_ERROR');
  });

  it.each([
    ["another fork's bundle", () => files.other, `the child continues fork PARENT; the parent bundle attests fork OTHER`],
    ['a parent bundle that no longer attests the branch named', () => files.parentWithoutBranch, 'the parent bundle attests no branch branch-claude'],
  ])('refuses %s as the parent with ATTESTATION_PARENT_MISMATCH', async (_what, parentFile, message) => {
    const { run, json } = await verify([files.child, '--public-key', files.pem, '--parent', parentFile()]);
    expect(run.code, run.stdout).toBe(1);
    expect(json.error?.code).toBe('ATTESTATION_PARENT_MISMATCH');
    expect(json.error?.message).toContain(message.replace('PARENT', parentId).replace('OTHER', otherId));
    expect(json.error?.details?.verification).toMatchObject({ verified: false, parent: 'not_linked' });
  });

  it('links to the parent bundle attested again after the parent was selected and landed (its proof changed, its contract and receipt did not)', async () => {
    await ok(['fork', 'select', parentId, 'branch-claude', '--reason', 'its verifier passed', '--json']);
    await h.landConfirmed(parentId);
    const landed = path.join(base, 'parent-landed.intoto.jsonl');
    await ok(['fork', 'attest', parentId, '--output', landed]);
    const proofDigest = (file: string): unknown => (statementsOf(file).at(-1)?.predicate as { artifacts?: { proof_digest: string } }).artifacts?.proof_digest;
    expect(proofDigest(landed)).not.toBe(proofDigest(files.parent));
    const { run, json } = await verify([files.child, '--public-key', files.pem, '--parent', landed]);
    expect(run.code, run.stdout).toBe(0);
    expect(json.parent).toMatchObject({ linked: true, fork_id: parentId, result_commit: parentResult });
  });

  it("refuses a first fork's bundle with --parent: it has no lineage", async () => {
    const { run, json } = await verify([files.other, '--public-key', files.pem, '--parent', files.parent]);
    expect(run.code, run.stdout).toBe(1);
    expect(json.error?.code).toBe('ATTESTATION_PARENT_MISMATCH');
    expect(json.error?.message).toContain('carries no lineage');
  });

  it("names the parent bundle's own failure with its code", async () => {
    const lines = readFileSync(files.parent, 'utf8').split('\n').filter(Boolean);
    const dropped = path.join(base, 'parent-without-decision.intoto.jsonl');
    writeFileSync(dropped, `${lines.slice(0, -1).join('\n')}\n`);
    const { run, json } = await verify([files.child, '--public-key', files.pem, '--parent', dropped]);
    expect(run.code).toBe(1);
    expect(json.error?.code).toBe('ATTESTATION_BUNDLE_INCONSISTENT');
    expect(json.error?.message).toMatch(/^the parent bundle: /);
  });
});
