/**
 * Issue 32 acceptance: a fork where both branches fail the test; a follow-up from the better branch,
 * with the same executors, starts from that branch's result commit, is told the parent's objective
 * as context, reaches `ready` with the fix, and lands in the original repository; its lineage is
 * bound in its contract and both ends of the chain show it. The three refusals create nothing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf } from '../../../shared/digest';
import { CLAUDE_CODEX_EXECUTORS as EXECUTORS, ForkHarness, parseDoc, WORKFLOW, WRONG_SUM } from '../../support/fork-harness';
import { runCli, type CliRun } from '../../support/run-cli';

// Closer than codex's: it also adds the helper the follow-up builds on.
const ALMOST_SUM = 'import { plus } from "./plus.js";\nexport function sum(a, b) {\n  return plus(a, b) + 1;\n}\n';
const PLUS = 'export const plus = (a, b) => a + b;\n';
const FOLLOW_UP_SUM = 'import { plus } from "./plus.js";\nexport function sum(a, b) {\n  return plus(a, b);\n}\n';
const PARENT_OBJECTIVE = 'Fix the sum function';
const FOLLOW_UP = 'The sum is off by one: drop the extra 1';

interface Status {
  fork_id: string;
  state: string;
  base_revision: string;
  contract_digest: string;
  lineage: Record<string, string> | null;
  children: { fork_id: string; parent_branch_id: string }[];
  branches: { branch_id: string; state: string; failure_code: string | null }[];
  error?: { code: string };
}

let base: string;
let h: ForkHarness;
let parentId: string;
let childId: string;

const json = <T>(run: CliRun): T => JSON.parse(run.stdout) as T;
const forkCount = (): number => (existsSync(path.join(h.root, 'forks')) ? readdirSync(path.join(h.root, 'forks')).length : 0);
const executorsFile = (): string => path.join(h.base, 'executors.json');

async function status(forkId: string): Promise<Status> {
  const run = await h.cli(['fork', 'status', forkId, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return json<Status>(run);
}

function followUp(from: string, extra: string[] = []): Promise<CliRun> {
  return h.cli(['fork', 'start', FOLLOW_UP, '--from', from, '--json', ...extra]);
}

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-follow-up-'));
  h = new ForkHarness(base);
  writeFileSync(executorsFile(), JSON.stringify(EXECUTORS));
  await h.simulate({
    claude: { edits: [{ path: 'src/sum.js', content: ALMOST_SUM }, { path: 'src/plus.js', content: PLUS }] },
    codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] },
  });
  const { run, doc } = await h.startJson(['--executors', executorsFile(), '--workflow', h.workflowFile]);
  expect(run.code, run.stderr).toBe(0);
  parentId = doc.fork_id;
  expect(doc.branches.map((b) => [b.branch_id, b.state, b.failure_code])).toEqual([
    ['branch-claude', 'failed', 'VERIFIER_FAILED'],
    ['branch-codex', 'failed', 'VERIFIER_FAILED'],
  ]);
}, 300_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('fork start --from', () => {
  it('continues from the better failed branch with the same executors and reaches ready with the fix', async () => {
    // Both branches of the follow-up now fix what the parent branch left.
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FOLLOW_UP_SUM }] });
    const run = await followUp(`${parentId}/branch-claude`);
    expect(run.code, run.stderr).toBe(0);
    const doc = parseDoc(run);
    childId = doc.fork_id;
    expect(doc.state).toBe('ready');
    expect(doc.branches.map((b) => [b.branch_id, b.state])).toEqual([
      ['branch-claude', 'passed'],
      ['branch-codex', 'passed'],
    ]);

    // Its base is the parent branch's delivered result, not the target's HEAD.
    const parentResult = h.gitIn(h.repo, 'rev-parse', `refs/heads/citadel/${parentId}/branch-claude`);
    const child = await status(childId);
    expect(child.base_revision).toBe(parentResult);
    expect(h.gitIn(h.repo, 'rev-parse', 'HEAD')).not.toBe(parentResult);
    for (const branchId of ['branch-claude', 'branch-codex']) {
      expect(h.gitIn(h.repo, 'merge-base', '--is-ancestor', parentResult, `citadel/${childId}/${branchId}`)).toBe('');
      expect(h.gitIn(h.repo, 'show', `citadel/${childId}/${branchId}:src/plus.js`)).toBe(PLUS.trim());
    }
  });

  it('binds the lineage in the contract digest and shows it at both ends of the chain', async () => {
    const parent = await status(parentId);
    const contract = h.readJson<{ lineage: Record<string, string>; base_revision: string }>(path.join(h.forkDir(childId), 'contract.json'));
    expect(contract.lineage).toEqual({
      parent_fork_id: parentId,
      parent_branch_id: 'branch-claude',
      parent_contract_digest: parent.contract_digest,
      parent_execution_receipt_digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      parent_result_commit: contract.base_revision,
      parent_objective_digest: h.readJson<{ objective_digest: string }>(path.join(h.forkDir(parentId), 'contract.json')).objective_digest,
      parent_signer_public_key_digest: h.readJson<{ signer_public_key_digest: string }>(path.join(h.forkDir(parentId), 'contract.json')).signer_public_key_digest,
      root_base_revision: parent.base_revision,
    });
    const child = await status(childId);
    expect(child.contract_digest).toBe(digestOf(contract));
    expect(child.lineage).toEqual(contract.lineage);
    expect(child.children).toEqual([]);
    expect(parent.lineage).toBeNull();
    expect(parent.children).toEqual([{ fork_id: childId, parent_branch_id: 'branch-claude' }]);

    const text = await h.cli(['fork', 'status', childId]);
    expect(text.stdout).toContain(`  continues ${parentId}/branch-claude\n`);
    expect((await h.cli(['fork', 'status', parentId])).stdout).toContain(`  continued ${childId} (from branch-claude)\n`);
    const list = await h.cli(['fork', 'status']);
    expect(list.stdout).toMatch(new RegExp(`^${childId} .*\\(continues ${parentId}/branch-claude\\)$`, 'm'));
  });

  it("gives the agent the parent's objective as context and the follow-up as its task", () => {
    const instruction = readFileSync(h.attemptFile(childId, 'branch-codex', 'instruction.md'), 'utf8');
    expect(instruction).toContain(`> ${PARENT_OBJECTIVE}`);
    expect(instruction.indexOf(PARENT_OBJECTIVE)).toBeLessThan(instruction.indexOf('# Objective'));
    expect(instruction.slice(instruction.indexOf('# Objective'))).toContain(FOLLOW_UP);
    const first = readFileSync(h.attemptFile(parentId, 'branch-codex', 'instruction.md'), 'utf8');
    expect(first).not.toContain('# Context');
  });

  it('lands the follow-up into the original repository, bringing the parent branch work with it', async () => {
    const selected = await h.cli(['fork', 'select', childId, 'branch-claude', '--reason', 'passes', '--json']);
    expect(selected.code, selected.stdout + selected.stderr).toBe(0);
    // The parent branch was never landed: the plan says the merge brings its work too, which Compare did not show.
    const parentResult = h.gitIn(h.repo, 'rev-parse', `refs/heads/citadel/${parentId}/branch-claude`);
    const plan = json<{ continues: unknown }>(await h.cli(['fork', 'land', childId, '--json']));
    expect(plan.continues).toEqual({ parent_fork_id: parentId, parent_branch_id: 'branch-claude', parent_result_commit: parentResult, in_target: false });
    expect((await h.cli(['fork', 'land', childId])).stdout).toContain(`WARNING: This follow-up continues ${parentId}/branch-claude, which is not in the target`);
    await h.landConfirmed(childId);
    expect(h.gitIn(h.repo, 'branch', '--show-current')).toBe('main');
    expect(readFileSync(path.join(h.repo, 'src', 'sum.js'), 'utf8')).toBe(FOLLOW_UP_SUM);
    expect(readFileSync(path.join(h.repo, 'src', 'plus.js'), 'utf8')).toBe(PLUS);
    expect((await status(childId)).state).toBe('landed');
  });

  it("carries the lineage in the landed follow-up's replay, proof and attestation; verify --parent links it offline, and refuses a bundle of another fork (the child's own)", async () => {
    const file = (name: string): string => path.join(base, name);
    for (const [command, forkId, name] of [['replay', childId, 'child.replay.json'], ['proof', childId, 'child.proof.json'], ['attest', childId, 'child.intoto.jsonl'], ['attest', parentId, 'parent.intoto.jsonl']] as const) {
      const run = await h.cli(['fork', command, forkId, '--output', file(name)]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
    }
    const replay = h.readJson<{ contract: { lineage: Record<string, string> } }>(file('child.replay.json'));
    expect(replay.contract.lineage).toMatchObject({ parent_fork_id: parentId, parent_branch_id: 'branch-claude' });
    expect(h.readJson<{ replay: unknown }>(file('child.proof.json')).replay).toEqual(replay);
    const parentResult = h.gitIn(h.repo, 'rev-parse', `refs/heads/citadel/${parentId}/branch-claude`);
    for (const text of [readFileSync(file('child.replay.json'), 'utf8'), readFileSync(file('child.proof.json'), 'utf8')]) {
      expect(text).not.toContain(parentResult);
      expect(text).not.toContain(PARENT_OBJECTIVE);
    }
    const child = readFileSync(file('child.intoto.jsonl'), 'utf8').split('\n').filter(Boolean);
    const first = JSON.parse(Buffer.from((JSON.parse(child[0] ?? '') as { payload: string }).payload, 'base64').toString('utf8')) as { predicateType: string; predicate: { materials: unknown } };
    expect(first.predicateType).toBe('urn:citadel:attestation:branch-result:v3');
    expect(first.predicate.materials).toEqual([{ name: `citadel/${parentId}/branch-claude`, digest: { gitCommit: parentResult } }]);

    writeFileSync(file('issuer.pem'), json<{ public_key_pem: string }>(await h.cli(['keys', 'export', '--json'])).public_key_pem);
    const empty = mkdtempSync(path.join(tmpdir(), 'citadel-follow-up-verify-'));
    try {
      const verify = (parent: string) =>
        runCli(['verify', file('child.intoto.jsonl'), '--public-key', file('issuer.pem'), '--parent', parent, '--json'], { env: { PATH: process.env.PATH, HOME: empty, CITADEL_HOME: empty }, cwd: empty });
      const linked = await verify(file('parent.intoto.jsonl'));
      expect(linked.code, linked.stdout + linked.stderr).toBe(0);
      expect(json<{ verified: boolean; parent: { linked: boolean } }>(linked)).toMatchObject({ verified: true, parent: { linked: true } });
      // Another fork's bundle, signed by the same key: the child's own (follow-up-attest.test.ts refuses an unrelated sibling's too).
      const other = await verify(file('child.intoto.jsonl'));
      expect(other.code).toBe(1);
      expect(json<{ error: { code: string } }>(other).error.code).toBe('ATTESTATION_PARENT_MISMATCH');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('continues from a landed branch and lands on top of it', async () => {
    await h.simulate({ edits: [{ path: 'src/sum.js', content: `${FOLLOW_UP_SUM}// checked\n` }] });
    const run = await followUp(`${childId}/branch-claude`);
    expect(run.code, run.stderr).toBe(0);
    const grandchild = parseDoc(run).fork_id;
    expect((await status(grandchild)).lineage?.parent_fork_id).toBe(childId);
    const landedHead = h.gitIn(h.repo, 'rev-parse', 'HEAD');
    expect((await h.cli(['fork', 'select', grandchild, 'branch-codex', '--reason', 'passes', '--json'])).code).toBe(0);
    expect(json<{ continues: { in_target: boolean } }>(await h.cli(['fork', 'land', grandchild, '--json'])).continues.in_target).toBe(true);
    await h.landConfirmed(grandchild);
    expect(h.gitIn(h.repo, 'merge-base', '--is-ancestor', landedHead, 'HEAD')).toBe('');
    expect(readFileSync(path.join(h.repo, 'src', 'sum.js'), 'utf8')).toBe(`${FOLLOW_UP_SUM}// checked\n`);
    expect((await status(childId)).children).toEqual([{ fork_id: grandchild, parent_branch_id: 'branch-claude' }]);

    // An edited contract grafts nothing: it no longer verifies, so it names no parent and is no child.
    const file = path.join(h.forkDir(grandchild), 'contract.json');
    const contract = h.readJson<{ lineage: Record<string, string> }>(file);
    writeFileSync(file, JSON.stringify({ ...contract, lineage: { ...contract.lineage, parent_branch_id: 'branch-codex' } }));
    expect((await status(childId)).children).toEqual([]);
    expect((await status(grandchild)).lineage).toBeNull();

    // Nor does a contract rewritten with its (unsigned) record to match: it names a branch the parent does not have.
    const forged = { ...contract, lineage: { ...contract.lineage, parent_branch_id: 'branch-forged' } };
    writeFileSync(file, JSON.stringify(forged));
    const recordFile = path.join(h.forkDir(grandchild), 'fork.json');
    writeFileSync(recordFile, JSON.stringify({ ...h.readJson(recordFile), contract_digest: digestOf(forged) }));
    expect((await status(grandchild)).lineage).toBeNull();
    expect((await status(childId)).children).toEqual([]);
    const listed = json<{ forks: Status[] }>(await h.cli(['fork', 'status', '--json'])).forks;
    expect(listed.find((f) => f.fork_id === childId)?.children).toEqual([]);
    expect(listed.find((f) => f.fork_id === grandchild)?.lineage).toBeNull();
  });
});

describe('fork start --from refusals create nothing', () => {
  // Nothing: no fork folder, no branch ref in the target, no worktree, no kept confirmation.
  const everything = (): string[] => [
    String(forkCount()),
    h.gitIn(h.repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/citadel'),
    ...(existsSync(path.join(h.root, 'worktrees')) ? readdirSync(path.join(h.root, 'worktrees')) : []),
    ...(existsSync(path.join(h.root, 'settings')) ? readdirSync(path.join(h.root, 'settings')) : []),
  ];

  async function refused(from: string, code: string, extra: string[] = []): Promise<void> {
    const before = everything();
    const run = await followUp(from, extra);
    expect(run.code, run.stdout + run.stderr).not.toBe(0);
    expect(json<{ error: { code: string } }>(run).error.code).toBe(code);
    expect(everything()).toEqual(before);
  }

  it('refuses a follow-up in another repository', async () => {
    const other = path.join(base, 'other-repo');
    h.gitIn(base, 'init', '-q', '-b', 'main', other);
    h.gitIn(other, 'commit', '-q', '--allow-empty', '-m', 'other');
    await refused(`${parentId}/branch-claude`, 'PARENT_TARGET_MISMATCH', ['--repo', other]);
  });

  it("refuses a branch whose result changed what the parent's policy protects (the agent's own tests would judge the follow-up)", async () => {
    await h.simulate({ edits: [{ path: 'test/sum.test.js', content: "import { test } from 'node:test';\ntest('sum adds', () => {});\n" }] });
    const { run, doc } = await h.startJson(['--executors', executorsFile(), '--workflow', h.workflowFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.branches.map((b) => b.failure_code)).toEqual(['POLICY_PROTECTED_PATH', 'POLICY_PROTECTED_PATH']);
    await refused(`${doc.fork_id}/branch-claude`, 'PARENT_RESULT_UNCHECKED');
  });

  it("checks a runtime-failed branch's result itself (its receipt's checks never ran): its work may be continued, unless it broke the policy", async () => {
    await h.simulate({ outcome: 'api_error_500', edits: [{ path: 'src/sum.js', content: WRONG_SUM }], codex: { outcome: 'api_error_500', edits: [{ path: 'test/sum.test.js', content: '// gone\n' }] } });
    const { run, doc } = await h.startJson(['--executors', executorsFile(), '--workflow', h.workflowFile, '--max-attempts', '2']);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.branches.map((b) => b.failure_code)).toEqual(['RUNTIME_API_ERROR', 'RUNTIME_API_ERROR']);
    await refused(`${doc.fork_id}/branch-codex`, 'PARENT_RESULT_UNCHECKED');
    // A link out of the tree is refused as collect's scan would have refused it.
    await h.simulate({ outcome: 'api_error_500', commands: [['ln', '-s', '/etc/passwd', 'src/escape']] });
    const linked = await h.startJson(['--executors', executorsFile(), '--workflow', h.workflowFile]);
    expect(linked.doc.branches.map((b) => b.failure_code)).toEqual(['RUNTIME_API_ERROR', 'RUNTIME_API_ERROR']);
    await refused(`${linked.doc.fork_id}/branch-claude`, 'PARENT_RESULT_UNCHECKED');
    await h.simulate({});
    const kept = await followUp(`${doc.fork_id}/branch-claude`, ['--detach', '--budget-seconds', '300']);
    expect(kept.code, kept.stdout + kept.stderr).toBe(0);
    const contract = h.readJson<{ base_revision: string; budget: unknown }>(path.join(h.forkDir(parseDoc(kept).fork_id), 'contract.json'));
    expect(contract.base_revision).toBe(h.gitIn(h.repo, 'rev-parse', `refs/heads/citadel/${doc.fork_id}/branch-claude`));
    // The budget named again, and the parent's for the rest.
    expect(contract.budget).toEqual({ max_duration_seconds: 300, max_cost_usd: null, max_attempts: 2 });
  });

    it('refuses a follow-up that protects what an agent of the chain changed (the verifier would read their tests)', async () => {
    const unprotected = path.join(base, 'unprotected.json');
    writeFileSync(unprotected, JSON.stringify({ ...WORKFLOW, protected_paths: [] }));
    await h.simulate({ edits: [{ path: 'test/sum.test.js', content: "import { test } from 'node:test';\ntest('sum adds', () => {});\n" }] });
    const { run, doc } = await h.startJson(['--executors', executorsFile(), '--workflow', unprotected]);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.branches.map((b) => b.state)).toEqual(['passed', 'passed']);
    // Its own workflow protects nothing the agent touched: a follow-up with it may start.
    await h.simulate({});
    const same = await followUp(`${doc.fork_id}/branch-claude`, ['--detach']);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    await refused(`${doc.fork_id}/branch-claude`, 'PARENT_PROTECTED_PATH_CHANGED', ['--workflow', h.workflowFile]);
  });

  it("checks a follow-up's setup against the settings its parent's agent committed, not HEAD's", async () => {
    const withSetup = path.join(base, 'with-setup.json');
    writeFileSync(withSetup, JSON.stringify({ ...WORKFLOW, schema_version: 2, setup: [{ id: 'npm-version', command: 'npm', args: ['--version'], timeout_seconds: 120 }] }));
    await h.simulate({ edits: [{ path: '.npmrc', content: 'registry=https://registry.attacker.invalid/\n' }, { path: 'src/sum.js', content: WRONG_SUM }] });
    const { run, doc } = await h.startJson(['--executors', executorsFile(), '--workflow', withSetup]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(doc.branches.map((b) => b.failure_code)).toEqual(['VERIFIER_FAILED', 'VERIFIER_FAILED']);
    await refused(`${doc.fork_id}/branch-claude`, 'SETUP_REGISTRY_UNSUPPORTED');
  });

  it('refuses a branch whose result commit is gone from the target', async () => {
    const ref = `citadel/${parentId}/branch-codex`;
    h.gitIn(h.repo, 'branch', '-D', ref);
    h.gitIn(h.repo, 'reflog', 'expire', '--expire=now', '--all');
    h.gitIn(h.repo, 'gc', '--quiet', '--prune=now');
    await refused(`${parentId}/branch-codex`, 'PARENT_RESULT_MISSING');
  });

  it('refuses a branch without a verified receipt', async () => {
    const receipt = h.attemptFile(parentId, 'branch-codex', 'execution-receipt.json');
    renameSync(receipt, `${receipt}.away`);
    await refused(`${parentId}/branch-codex`, 'PARENT_RECEIPT_UNVERIFIED');
    renameSync(`${receipt}.away`, receipt);
    await refused(`${parentId}/branch-nobody`, 'BRANCH_NOT_FOUND');
  });

  it('refuses a parent whose contract was edited', async () => {
    const file = path.join(h.forkDir(parentId), 'contract.json');
    const contract = h.readJson<{ budget: { max_duration_seconds: number } }>(file);
    writeFileSync(file, JSON.stringify({ ...contract, budget: { ...contract.budget, max_duration_seconds: 99 } }));
    await refused(`${parentId}/branch-claude`, 'PARENT_CONTRACT_UNVERIFIED');
  });

  it('refuses what is not FORK_ID/BRANCH_ID as a usage error', async () => {
    await refused('not-a-fork', 'USAGE_ERROR');
  });
});
