import { describe, expect, it } from 'vitest';
import { ForkStore } from '../../../main/store/fork-store';
import type { ForkRecord } from '../../../shared/fork/fork-record';
import { CHANNEL_NAMES, type ChannelName } from '../../../shared/ipc/contract';
import { ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { serviceOver } from '../../support/service-context';
import { createMissionControlService } from '../../../main/mission-control/service';

const tempDir = useTempDirs();

const FORK_ID = `fork-${'0'.repeat(26)}`;
const START = { objective: 'Fix the sum function', repo: '/nowhere', executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null };
const CLAUDE = { profile_id: 'claude-a', runtime: 'claude', model: null, local_provider: null, adapter_options: {} };
const CODEX = { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} };

/** A request each channel's schema accepts, to which the malformed ones below are variations. */
const VALID: Record<ChannelName, Record<string, unknown>> = {
  listForks: { state: null },
  forkStatus: { fork_id: FORK_ID },
  forkContainment: { fork_id: FORK_ID },
  forkOverview: { fork_id: FORK_ID },
  forkTimeline: { fork_id: FORK_ID },
  previewFork: START,
  workflowDocument: { workflow_file: null },
  proposeWorkflow: { repo: '/tmp/repo' },
  verifyAttestation: { bundle: '', public_key_pem: null },
  startFork: START,
  stopBranch: { fork_id: FORK_ID, branch_id: null },
  resumability: { fork_id: FORK_ID },
  resumeFork: { fork_id: FORK_ID },
  resolveBranch: { fork_id: FORK_ID, branch_id: 'branch-claude', resolution: 'mark-failed' },
  cleanFork: { fork_id: FORK_ID },
  cleanability: { fork_id: FORK_ID },
  branchDetail: { fork_id: FORK_ID, branch_id: 'branch-claude' },
  compareFork: { fork_id: FORK_ID },
  selectBranch: { fork_id: FORK_ID, branch_id: 'branch-claude', reason: 'it passed', actor: 'alice' },
  landingChecks: { fork_id: FORK_ID },
  confirmLanding: { fork_id: FORK_ID, token: '0123456789ab' },
  exportReplay: { fork_id: FORK_ID },
  exportProof: { fork_id: FORK_ID },
  proofProjection: { fork_id: FORK_ID },
  openArtifact: { text: '{}' },
  validateExecutors: { text: '{}' },
  readiness: {},
  settings: {},
  runtimeReadiness: { runtime: 'claude' },
  localProviderReadiness: {},
  sandboxReadiness: {},
  profileSets: {},
  saveProfileSet: { name: 'local models', file: { schema_version: 1, executors: [CLAUDE, CODEX] } },
  deleteProfileSet: { name: 'local models' },
  branchOutput: { fork_id: FORK_ID, branch_id: 'branch-claude' },
  branchLog: { fork_id: FORK_ID, branch_id: 'branch-claude', which: 'stdout' },
  followUpDraft: { fork_id: FORK_ID, branch_id: 'branch-claude' },
};

const SPECIFIC: Partial<Record<ChannelName, Record<string, unknown>[]>> = {
  listForks: [{}, { state: 'bogus' }],
  forkStatus: [{ fork_id: '../../etc' }, { fork_id: `FORK-${'0'.repeat(26)}` }, { fork_id: 7 }],
  previewFork: [
    { ...START, executors: { kind: 'executors', profiles: [{ ...CLAUDE, adapter_options: { permission_mode: 'bypassPermissions' } }, CODEX] } },
    { ...START, executors: { kind: 'shell', command: 'rm -rf /' } },
    { ...START, containment: 'none' },
  ],
  startFork: [
    { ...START, objective: '' },
    { ...START, budget_seconds: 0 },
    { ...START, budget_seconds: 1.5 },
    { ...START, containment: 'off' },
    { ...START, containment: true },
    { objective: 'x', repo: '/r', executors: START.executors, budget_seconds: null },
    { ...START, executors: { kind: 'executors', profiles: [{ ...CODEX, adapter_options: { sandbox: 'danger-full-access' } }, CLAUDE] } },
  ],
  stopBranch: [{ fork_id: FORK_ID }, { fork_id: FORK_ID, branch_id: 'branch-../x' }],
  resumability: [{ fork_id: 'fork-../x' }],
  resumeFork: [{ fork_id: FORK_ID, detach: true }, { fork_id: null }],
  resolveBranch: [
    { fork_id: FORK_ID, branch_id: 'branch-claude', resolution: 'MARK-FAILED' },
    { fork_id: FORK_ID, branch_id: 'branch-claude', resolution: ['retry'] },
    { fork_id: FORK_ID, branch_id: 'branch-claude' },
    { fork_id: FORK_ID, branch_id: '../branch-claude', resolution: 'retry' },
  ],
  cleanFork: [{ fork_id: `${FORK_ID}/..` }, { fork_id: FORK_ID, force: true }],
  branchDetail: [{ fork_id: FORK_ID, branch_id: 'BRANCH-claude' }],
  selectBranch: [
    { ...VALID.selectBranch, reason: '' },
    { ...VALID.selectBranch, actor: 'x'.repeat(129) },
  ],
  confirmLanding: [{ fork_id: FORK_ID, token: 'ABCDEF123456' }, { fork_id: FORK_ID, token: 'abc' }],
  openArtifact: [{ text: 5 }, { text: 'x'.repeat(16 * 1024 * 1024 + 1) }],
  validateExecutors: [{ text: null }],
  branchLog: [{ ...VALID.branchLog, which: 'setup:../contract' }, { ...VALID.branchLog, which: 'stdout.log' }],
  followUpDraft: [{ fork_id: FORK_ID, branch_id: 'branch claude' }, { fork_id: 'fork-x', branch_id: 'branch-claude' }],
};

function malformed(channel: ChannelName): unknown[] {
  return [undefined, null, [], 'text', 42, { ...VALID[channel], unexpected: true }, ...(SPECIFIC[channel] ?? [])];
}

describe('the Mission Control service refuses what its contract refuses', () => {
  it('refuses every malformed request of every channel by its schema, with violations, and does nothing', async () => {
    const { service } = await serviceOver(new ForkHarness(tempDir('citadel-mc-')));
    for (const channel of CHANNEL_NAMES) {
      for (const payload of malformed(channel)) {
        const reply = await service.handle(channel, payload);
        expect(reply, `${channel} ${JSON.stringify(payload)?.slice(0, 120)}`).toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID', details: { channel } } });
        expect(reply.ok === false && reply.error.violations?.length).toBeGreaterThan(0);
      }
    }
    expect(await service.handle('listForks', { state: null })).toEqual({ ok: true, value: { forks: [] } });
  });

  it('names the offending field by its path', async () => {
    const { service } = await serviceOver(new ForkHarness(tempDir('citadel-mc-')));
    const reply = await service.handle('selectBranch', { ...VALID.selectBranch, actor: '', extra: 1 });
    expect(reply.ok).toBe(false);
    const paths = reply.ok ? [] : (reply.error.violations ?? []).map((v) => `${v.path} ${v.rule}`);
    expect(paths).toEqual(expect.arrayContaining(['$.actor too_small', '$.extra unknown_field']));
  });

  it('refuses unknown channels, inherited property names included', async () => {
    const { service } = await serviceOver(new ForkHarness(tempDir('citadel-mc-')));
    for (const channel of ['nope', '__proto__', 'toString', 'constructor', 'hasOwnProperty', '']) {
      expect(await service.handle(channel, {}), channel).toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID' } });
    }
  });

  it('carries a typed CitadelError across as {ok:false,error:{code}} with its violations', async () => {
    const { service } = await serviceOver(new ForkHarness(tempDir('citadel-mc-')));
    expect(await service.handle('forkStatus', { fork_id: FORK_ID })).toMatchObject({ ok: false, error: { code: 'FORK_NOT_FOUND' } });
    // The preview reports an engine refusal at its field (code and plain words), not as a failed call.
    expect(await service.handle('previewFork', { ...START, executors: { kind: 'runtimes', list: 'claude' } })).toMatchObject({
      ok: true,
      value: { ready: false, fields: { executors: { problems: [{ code: 'RUNTIMES_INVALID' }] } }, executors: null },
    });
    const duplicate = await service.handle('previewFork', { ...START, executors: { kind: 'executors', profiles: [CLAUDE, { ...CODEX, profile_id: 'claude-a' }] } });
    expect(duplicate).toMatchObject({ ok: true, value: { ready: false, fields: { executors: { problems: [{ code: 'EXECUTOR_FILE_INVALID', message: expect.stringMatching(/^Profile 2, profile_id: /) }] } } } });
    const file = await service.handle('validateExecutors', { text: '{"schema_version":1,"executors":[]} // no' });
    expect(file).toMatchObject({ ok: false, error: { code: 'EXECUTOR_FILE_INVALID', violations: [{ rule: 'json_syntax' }] } });
    expect(await service.handle('startFork', { ...START, repo: tempDir('citadel-not-a-repo-') })).toMatchObject({ ok: false, error: { code: 'REPOSITORY_INVALID' } });
  });

  it('answers the read-only channels of a fresh root: preview, validate, settings', async () => {
    const h = new ForkHarness(tempDir('citadel-mc-'));
    const { service } = await serviceOver(h);
    const preview = await service.handle('previewFork', { ...START, executors: { kind: 'executors', profiles: [CODEX, CLAUDE] } });
    expect(preview).toMatchObject({ ok: true, value: { schema_version: 2, executors: { profiles: [{ profile_id: 'claude-a' }, { profile_id: 'codex-a' }] } } });
    const legacy = await service.handle('previewFork', START);
    expect(legacy).toMatchObject({ ok: true, value: { schema_version: 1, executors: { profiles: [{ branch_id: 'branch-claude' }, { branch_id: 'branch-codex' }] } } });
    const validated = await service.handle('validateExecutors', { text: JSON.stringify({ schema_version: 1, executors: [CLAUDE, CODEX] }) });
    expect(validated.ok && validated.value.executor_set_digest).toEqual(preview.ok && preview.value.executors?.executor_set_digest);
    expect(await service.handle('listForks', { state: null })).toEqual({ ok: true, value: { forks: [] } });

    // No fork has signed yet, so the issuer has no key, and reading settings does not create one.
    const settings = await service.handle('settings', {});
    expect(settings).toMatchObject({
      ok: true,
      value: { issuer_id: h.issuer, key_store: 'file', key_store_ready: true, key_store_problem: null, signing_key: 'not_created', public_key_fingerprint: null },
    });
  });
});

/** A store whose records are what the test says, for errors the real engine does not make on purpose. */
class ScriptedStore extends ForkStore {
  constructor(
    base: ForkStore,
    private readonly read: (forkId: string) => Promise<ForkRecord>,
  ) {
    super(base.root);
  }
  override readRecord(forkId: string): Promise<ForkRecord> {
    return this.read(forkId);
  }
  override async listForkIds(): Promise<string[]> {
    return [FORK_ID];
  }
}

describe('the Mission Control service never sends what it has not validated', () => {
  it('turns an unexpected error into INTERNAL_ERROR without a stack trace, and logs the stack', async () => {
    const { ctx } = await serviceOver(new ForkHarness(tempDir('citadel-mc-')));
    const logs: string[] = [];
    const store = new ScriptedStore(ctx.store, () => Promise.reject(new TypeError('records are on fire')));
    const service = createMissionControlService({ ...ctx, store }, { log: (line) => void logs.push(line) });
    const reply = await service.handle('forkStatus', { fork_id: FORK_ID });
    expect(reply).toEqual({ ok: false, error: { code: 'INTERNAL_ERROR', message: 'internal error: TypeError: records are on fire' } });
    expect(logs.join('\n')).toMatch(/records are on fire\n\s+at /);
  });

  it('refuses to send a response that fails its own schema', async () => {
    const { ctx } = await serviceOver(new ForkHarness(tempDir('citadel-mc-')));
    const logs: string[] = [];
    const broken = { fork_id: FORK_ID, state: 'ready', created_at: 12, branches: [] } as unknown as ForkRecord;
    const store = new ScriptedStore(ctx.store, () => Promise.resolve(broken));
    const service = createMissionControlService({ ...ctx, store }, { log: (line) => void logs.push(line) });
    expect(await service.handle('forkStatus', { fork_id: FORK_ID })).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
    expect(await service.handle('listForks', { state: null })).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
    expect(logs.some((line) => line.includes('forkStatus response failed its schema'))).toBe(true);
  });
});
