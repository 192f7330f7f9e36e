import { describe, expect, it, vi } from 'vitest';
import { CitadelError } from '../../../shared/errors';
import { APP_CHANNEL_NAMES, appIpcChannelName, appReplySchema, type AppChannelName } from '../../../shared/ipc/app-channels';
import { CHANNEL_NAMES, ipcChannelName, replySchema, type ChannelName, type Reply } from '../../../shared/ipc/contract';
import { registerAppIpcHandlers, registerIpcHandlers, type AppChannelHandlers } from '../../../main/app/ipc-handlers';
import { createTrustedSenders, type SenderEvent } from '../../../main/app/trusted-senders';
import type { OrchestratorContext } from '../../../main/host/context';
import { createMissionControlService } from '../../../main/mission-control/service';
import { FakeIpcMain, FakeWebContents, fakeService, senderEvent } from './fakes';

const FORK = 'fork-01jq0000000000000000000000';
const SET_FILE = {
  schema_version: 1,
  executors: [
    { profile_id: 'claude', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
    { profile_id: 'codex', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
  ],
};
const START = { objective: 'Fix the flaky test', repo: '/repo', executors: { kind: 'runtimes', list: 'claude' }, workflow_file: null, budget_seconds: null };

/** One valid request per channel: typed by channel, so a new contract channel must be added here. */
const VALID: Record<ChannelName, unknown> = {
  listForks: { state: null },
  forkStatus: { fork_id: FORK },
  forkContainment: { fork_id: FORK },
  forkOverview: { fork_id: FORK },
  forkTimeline: { fork_id: FORK },
  previewFork: START,
  workflowDocument: { workflow_file: null },
  proposeWorkflow: { repo: '/tmp/repo' },
  verifyAttestation: { bundle: '', public_key_pem: null },
  startFork: START,
  stopBranch: { fork_id: FORK, branch_id: null },
  resumability: { fork_id: FORK },
  resumeFork: { fork_id: FORK },
  resolveBranch: { fork_id: FORK, branch_id: 'branch-claude', resolution: 'retry' },
  cleanFork: { fork_id: FORK },
  cleanability: { fork_id: FORK },
  branchDetail: { fork_id: FORK, branch_id: 'branch-claude' },
  compareFork: { fork_id: FORK },
  selectBranch: { fork_id: FORK, branch_id: 'branch-claude', reason: 'best evidence', actor: 'operator' },
  landingChecks: { fork_id: FORK },
  confirmLanding: { fork_id: FORK, token: '0123456789ab' },
  exportReplay: { fork_id: FORK },
  exportProof: { fork_id: FORK },
  proofProjection: { fork_id: FORK },
  openArtifact: { text: '{}' },
  validateExecutors: { text: '{"executors":[]}' },
  readiness: {},
  settings: {},
  runtimeReadiness: { runtime: 'claude' },
  localProviderReadiness: {},
  sandboxReadiness: {},
  profileSets: {},
  saveProfileSet: { name: 'local models', file: SET_FILE },
  deleteProfileSet: { name: 'local models' },
  branchOutput: { fork_id: FORK, branch_id: 'branch-claude' },
  branchLog: { fork_id: FORK, branch_id: 'branch-claude', which: 'verifier:workflow_verifier' },
  followUpDraft: { fork_id: FORK, branch_id: 'branch-claude' },
};

/** At least one malformed request per channel, each one the schema must refuse. */
const MALFORMED: Record<ChannelName, unknown[]> = {
  listForks: [{ state: 'exploded' }, {}],
  forkStatus: [{ fork_id: '../../etc' }, { fork_id: FORK, extra: 1 }],
  forkContainment: [{ fork_id: '../../etc' }, {}],
  forkOverview: [{ fork_id: '../../etc' }, {}],
  forkTimeline: [{ fork_id: '../../etc' }, {}],
  previewFork: [{ ...START, objective: 42 }, { ...START, executors: { kind: 'shell', list: 'sh' } }],
  workflowDocument: [{ workflow_file: 42 }, {}],
  proposeWorkflow: [{ repo: '' }, { repo: 'relative/repo' }, {}],
  verifyAttestation: [{ bundle: 7, public_key_pem: null }, { bundle: '' }],
  startFork: [{ ...START, repo: 42 }, { ...START, budget_seconds: 0 }, { ...START, objective: 'x'.repeat(64 * 1024 + 1) }],
  stopBranch: [{ fork_id: FORK }, { fork_id: FORK, branch_id: 'Branch A' }],
  resumability: [{ fork_id: 'fork-1' }],
  resumeFork: [{ fork_id: FORK, mode: 'all' }, {}],
  resolveBranch: [
    { fork_id: FORK, branch_id: 'branch-claude', resolution: 'rerun' },
    { fork_id: FORK, branch_id: 'branch-claude' },
    { fork_id: FORK, branch_id: null, resolution: 'mark-failed' },
  ],
  cleanFork: [{ fork_id: FORK, keep_evidence: false }, { fork_id: '../../etc' }],
  cleanability: [{}],
  branchDetail: [{ fork_id: FORK, branch_id: null }],
  compareFork: [{ fork_id: FORK.toUpperCase() }],
  selectBranch: [{ fork_id: FORK, branch_id: 'branch-claude', reason: '', actor: 'operator' }, { fork_id: FORK, branch_id: 'branch-claude', reason: 'r' }],
  landingChecks: [{ fork: FORK }],
  confirmLanding: [{ fork_id: FORK, token: 'ZZZZZZZZZZZZ' }, { fork_id: FORK, token: '0123456789abc' }],
  exportReplay: [{ fork_id: null }],
  exportProof: [[FORK]],
  proofProjection: [`{"fork_id":"${FORK}"}`],
  openArtifact: [{ text: 'x'.repeat(16 * 1024 * 1024 + 1) }, { text: {} }],
  validateExecutors: [{ text: 'x'.repeat(1024 * 1024 + 1) }],
  readiness: [{ verbose: true }, null],
  settings: [{ reveal_key: true }],
  runtimeReadiness: [{}, { runtime: '' }],
  localProviderReadiness: [{ provider: 'ollama' }],
  sandboxReadiness: [{ backend: 'bubblewrap' }],
  profileSets: [{ name: 'x' }],
  saveProfileSet: [{ name: '', file: SET_FILE }, { name: 'one', file: { schema_version: 1, executors: [SET_FILE.executors[0]] } }],
  deleteProfileSet: [{}, { name: ' padded ' }],
  branchOutput: [{ fork_id: FORK }, { fork_id: FORK, branch_id: '../x' }],
  branchLog: [{ fork_id: FORK, branch_id: 'branch-claude', which: 'setup:../../contract' }, { fork_id: FORK, branch_id: 'branch-claude', which: 'verifier:rm' }],
  followUpDraft: [{ fork_id: FORK, branch_id: '../branch-claude' }, { fork_id: FORK }],
};

const APP_URL = 'app://citadel/index.html';

function setup(answer: (channel: ChannelName, payload: unknown) => Promise<Reply<ChannelName>> = async () => ({ ok: true, value: { forks: [] } })) {
  const ipcMain = new FakeIpcMain();
  const { service, calls } = fakeService(answer);
  const senders = createTrustedSenders();
  const window = new FakeWebContents(1);
  senders.trust(window);
  registerIpcHandlers(ipcMain, service, senders.isTrusted);
  return { ipcMain, calls, window, fromWindow: senderEvent(window, APP_URL) };
}

/**
 * The IPC handlers over the real service, which is where every contract request is parsed, on a
 * context no refused request may reach: any use of it is recorded (and throws).
 */
function setupParsing() {
  const reached: string[] = [];
  // The service copies the context's fields when it is created; each field records (and refuses) any use.
  const recorder = (field: string): unknown =>
    new Proxy(() => undefined, {
      get: (_target, key) => {
        reached.push(`${field}.${String(key)}`);
        throw new Error(`the engine was reached (${field}.${String(key)})`);
      },
      apply: () => {
        reached.push(`${field}()`);
        throw new Error(`the engine was reached (${field}())`);
      },
    });
  const fields = ['root', 'store', 'adapters', 'env', 'keys', 'issuerId', 'supervisorScript', 'nodeExecPath', 'now', 'events'] satisfies (keyof OrchestratorContext)[];
  const ctx = Object.fromEntries(fields.map((field) => [field, recorder(field)])) as unknown as OrchestratorContext;
  const ipcMain = new FakeIpcMain();
  const senders = createTrustedSenders();
  const window = new FakeWebContents(1);
  senders.trust(window);
  registerIpcHandlers(ipcMain, createMissionControlService(ctx, { log: () => undefined }), senders.isTrusted);
  return { ipcMain, reached, fromWindow: senderEvent(window, APP_URL) };
}

describe('IPC handler registration', () => {
  it('registers exactly one handler per contract channel and no other', () => {
    const { ipcMain } = setup();
    expect([...ipcMain.handlers.keys()].sort()).toEqual(CHANNEL_NAMES.map(ipcChannelName).sort());
    expect(ipcMain.handlers.size).toBe(Object.keys(VALID).length);
  });

  it('registers the app channels under their own prefix, apart from the contract', () => {
    const ipcMain = new FakeIpcMain();
    registerAppIpcHandlers(ipcMain, { chooseRepositoryFolder: async () => ({ path: null }), saveArtifact: async () => ({ saved: false }), openWorktree: async () => ({ opened: true }) }, () => true);
    expect([...ipcMain.handlers.keys()]).toEqual(APP_CHANNEL_NAMES.map(appIpcChannelName));
    expect(APP_CHANNEL_NAMES.map(appIpcChannelName).filter((name) => CHANNEL_NAMES.map(ipcChannelName).includes(name))).toEqual([]);
  });

  it('removes every handler it registered', () => {
    const ipcMain = new FakeIpcMain();
    const unregister = registerIpcHandlers(ipcMain, fakeService(async () => ({ ok: true, value: { forks: [] } })).service, () => true);
    unregister();
    expect(ipcMain.handlers.size).toBe(0);
  });
});

describe('IPC sender validation', () => {
  it('answers the app window on every channel, passing its one request to the service', async () => {
    const { ipcMain, calls, fromWindow } = setup();
    for (const channel of CHANNEL_NAMES) {
      await expect(ipcMain.invoke(ipcChannelName(channel), fromWindow, VALID[channel])).resolves.toEqual({ ok: true, value: { forks: [] } });
    }
    expect(calls).toEqual(CHANNEL_NAMES.map((channel) => ({ channel, payload: VALID[channel] })));
  });

  it.each([
    ['another webContents', senderEvent(new FakeWebContents(2), APP_URL)],
    ['a frame of a foreign origin', senderEvent(new FakeWebContents(1), 'https://evil.example/index.html')],
    ['a file:// page', senderEvent(new FakeWebContents(1), 'file:///tmp/index.html')],
    ['another app:// host', senderEvent(new FakeWebContents(1), 'app://evil/index.html')],
    ['a subframe of the app window', senderEvent(new FakeWebContents(1), APP_URL, { url: APP_URL })],
    ['a frame already gone', { sender: { id: 1 }, senderFrame: null }],
  ])('refuses %s without calling the service', async (_name, event) => {
    const { ipcMain, calls } = setup();
    for (const channel of CHANNEL_NAMES) {
      const reply = await ipcMain.invoke(ipcChannelName(channel), event, VALID[channel]);
      expect(reply).toEqual({ ok: false, error: { code: 'IPC_SENDER_REFUSED', message: expect.any(String), details: { channel } } });
      expect(replySchema(channel).safeParse(reply).success).toBe(true);
    }
    expect(calls).toEqual([]);
  });

  it('stops trusting a window once it is destroyed', async () => {
    const { ipcMain, calls, window, fromWindow } = setup();
    window.destroy();
    const reply = await ipcMain.invoke(ipcChannelName('settings'), fromWindow, {});
    expect(reply).toMatchObject({ ok: false, error: { code: 'IPC_SENDER_REFUSED' } });
    expect(calls).toEqual([]);
  });
});

describe('IPC request validation', () => {
  it.each(CHANNEL_NAMES)('refuses malformed %s requests by schema, before the engine', async (channel) => {
    const { ipcMain, reached, fromWindow } = setupParsing();
    for (const payload of [...MALFORMED[channel], undefined, 'text', 7]) {
      const reply = await ipcMain.invoke(ipcChannelName(channel), fromWindow, payload);
      expect(reply).toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID', details: { channel } } });
      expect((reply as { error: { violations: unknown[] } }).error.violations.length).toBeGreaterThan(0);
      expect(replySchema(channel).safeParse(reply).success).toBe(true);
    }
    expect(reached).toEqual([]);
    // The guard itself works: a valid request does reach the engine.
    await ipcMain.invoke(ipcChannelName('forkStatus'), fromWindow, { fork_id: FORK });
    expect(reached).not.toEqual([]);
  });

  it('leaves the parsing to the service: the request reaches it as it came, and its refusal comes back', async () => {
    const refusal = { ok: false as const, error: { code: 'IPC_REQUEST_INVALID' as const, message: 'refused by the service', details: { channel: 'forkStatus' } } };
    const { ipcMain, calls, fromWindow } = setup(async () => refusal);
    await expect(ipcMain.invoke(ipcChannelName('forkStatus'), fromWindow, { fork_id: '../../etc' })).resolves.toEqual(refusal);
    expect(calls).toEqual([{ channel: 'forkStatus', payload: { fork_id: '../../etc' } }]);
  });

  it('names the offending field by its path', async () => {
    const { ipcMain, fromWindow } = setupParsing();
    const reply = await ipcMain.invoke(ipcChannelName('forkStatus'), fromWindow, { fork_id: FORK, extra: 1 });
    expect(reply).toMatchObject({ error: { violations: [{ path: '$.extra', rule: 'unknown_field' }] } });
  });

  it('refuses a call with no request or more than one argument', async () => {
    const { ipcMain, calls, fromWindow } = setup();
    await expect(ipcMain.invoke(ipcChannelName('settings'), fromWindow)).resolves.toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID' } });
    await expect(ipcMain.invoke(ipcChannelName('settings'), fromWindow, {}, {})).resolves.toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID' } });
    expect(calls).toEqual([]);
  });
});

describe('errors cross as typed values', () => {
  it('passes the service refusal through unchanged', async () => {
    const refusal = { ok: false as const, error: { code: 'FORK_NOT_FOUND' as const, message: `no fork ${FORK}`, details: { fork_id: FORK } } };
    const { ipcMain, fromWindow } = setup(async () => refusal);
    await expect(ipcMain.invoke(ipcChannelName('forkStatus'), fromWindow, { fork_id: FORK })).resolves.toEqual(refusal);
  });

  it('turns a thrown CitadelError into its typed value', async () => {
    const { ipcMain, fromWindow } = setup(async () => {
      throw new CitadelError('FORK_LOCKED', 'the fork is locked', { details: { fork_id: FORK } });
    });
    await expect(ipcMain.invoke(ipcChannelName('compareFork'), fromWindow, { fork_id: FORK })).resolves.toEqual({
      ok: false,
      error: { code: 'FORK_LOCKED', message: 'the fork is locked', details: { fork_id: FORK } },
    });
  });

  it('turns any other throw into INTERNAL_ERROR without its message', async () => {
    const { ipcMain, fromWindow } = setup(async () => {
      throw new Error('/home/operator/secret-path exploded');
    });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reply = await ipcMain.invoke(ipcChannelName('settings'), fromWindow, {});
    expect(reply).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
    expect(JSON.stringify(reply)).not.toContain('secret-path');
    // The detail stays in the main process's log.
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('"settings"'), expect.objectContaining({ message: '/home/operator/secret-path exploded' }));
    logged.mockRestore();
    expect(replySchema('settings').safeParse(reply).success).toBe(true);
  });
});

describe('app channels', () => {
  const VALID_APP: Record<AppChannelName, unknown> = {
    chooseRepositoryFolder: {},
    saveArtifact: { suggested_name: `${FORK}.replay.json`, text: '{}' },
    openWorktree: { fork_id: FORK, branch_id: 'branch-claude', with: 'editor' },
  };
  const MALFORMED_APP: Record<AppChannelName, unknown[]> = {
    chooseRepositoryFolder: [{ defaultPath: '/etc' }, null],
    saveArtifact: [
      { suggested_name: '../../.bashrc', text: 'x' },
      { suggested_name: 'C:\\Windows\\evil.json', text: 'x' },
      { suggested_name: '..', text: 'x' },
      { suggested_name: '', text: 'x' },
      { suggested_name: 'a.json', text: 'x', path: '/etc/passwd' },
      { suggested_name: 'a.json' },
    ],
    // Ids only: a path, or an id that is a path, is refused before anything is opened.
    openWorktree: [
      { fork_id: FORK, branch_id: 'branch-claude', with: 'editor', path: '/etc' },
      { fork_id: '../../etc', branch_id: 'branch-claude', with: 'editor' },
      { fork_id: FORK, branch_id: '../../../home', with: 'terminal' },
      { fork_id: FORK, branch_id: 'branch-claude', with: 'shell' },
    ],
  };

  function setupApp(overrides: Partial<AppChannelHandlers> = {}) {
    const calls: [string, unknown][] = [];
    const handlers: AppChannelHandlers = {
      chooseRepositoryFolder: async (request) => (calls.push(['chooseRepositoryFolder', request]), { path: '/home/operator/repo' }),
      saveArtifact: async (request) => (calls.push(['saveArtifact', request]), { saved: true }),
      openWorktree: async (request) => (calls.push(['openWorktree', request]), { opened: true }),
      ...overrides,
    };
    const ipcMain = new FakeIpcMain();
    const senders = createTrustedSenders();
    const window = new FakeWebContents(1);
    senders.trust(window);
    registerAppIpcHandlers(ipcMain, handlers, senders.isTrusted);
    const own = senderEvent(window, APP_URL);
    return { calls, own, invoke: (channel: AppChannelName, event: SenderEvent, ...args: unknown[]) => ipcMain.invoke(appIpcChannelName(channel), event, ...args) };
  }

  it.each(APP_CHANNEL_NAMES)('answers %s for the app window with the typed envelope', async (channel) => {
    const { invoke, own, calls } = setupApp();
    const reply = await invoke(channel, own, VALID_APP[channel]);
    expect(reply).toMatchObject({ ok: true });
    expect(appReplySchema(channel).safeParse(reply).success).toBe(true);
    expect(calls).toEqual([[channel, VALID_APP[channel]]]);
  });

  it.each(APP_CHANNEL_NAMES)('refuses %s from a foreign sender and with malformed requests, before any dialog', async (channel) => {
    const { invoke, own, calls } = setupApp();
    await expect(invoke(channel, senderEvent(new FakeWebContents(9), APP_URL), VALID_APP[channel])).resolves.toMatchObject({
      ok: false,
      error: { code: 'IPC_SENDER_REFUSED' },
    });
    for (const payload of [...MALFORMED_APP[channel], undefined]) {
      const reply = await invoke(channel, own, payload);
      expect(reply, JSON.stringify(payload)).toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID' } });
      expect(appReplySchema(channel).safeParse(reply).success).toBe(true);
    }
    expect(calls).toEqual([]);
  });

  it('refuses an answer outside the response schema as INTERNAL_ERROR', async () => {
    const { invoke, own } = setupApp({ chooseRepositoryFolder: async () => ({ path: '' }) });
    await expect(invoke('chooseRepositoryFolder', own, {})).resolves.toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
  });

  it('returns a failing dialog as a typed error', async () => {
    const { invoke, own } = setupApp({
      saveArtifact: async () => {
        throw new CitadelError('INTERNAL_ERROR', 'could not write /read-only/a.json (EACCES)');
      },
    });
    await expect(invoke('saveArtifact', own, VALID_APP.saveArtifact)).resolves.toEqual({
      ok: false,
      error: { code: 'INTERNAL_ERROR', message: 'could not write /read-only/a.json (EACCES)' },
    });
  });
});
