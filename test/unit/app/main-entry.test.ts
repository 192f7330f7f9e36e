/**
 * The Electron entry wired against a stand-in `electron` module (the binary cannot run here): what
 * it registers before and after ready, the window it opens, the protocol it serves, and what it
 * does without a usable Node for the supervisor.
 */
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APP_CHANNEL_NAMES, appIpcChannelName, appReplySchema, type AppChannelName } from '../../../shared/ipc/app-channels';
import { CHANNEL_NAMES, EVENT_CHANNEL, ipcChannelName, replySchema, type ChannelName, type ChannelResponse, type Reply } from '../../../shared/ipc/contract';
import type * as SupervisorNodeModule from '../../../main/app/supervisor-node';
import { CONTENT_SECURITY_POLICY } from '../../../main/web/security-headers';
import { FakeIpcMain, fakeService, senderEvent } from './fakes';

type Handler = (...args: never[]) => unknown;

/** What the stand-in service answers: a valid value for the channels these tests call, a typed refusal for the others. */
const SERVICE_VALUES: { [C in ChannelName]?: ChannelResponse<C> } = {
  listForks: { forks: [] },
  settings: {
    fork_root: '/home/operator/.citadel/forks',
    issuer_id: 'local-operator',
    signing_key: 'not_created',
    public_key_fingerprint: null,
    public_key_pem: null,
    key_store: 'os-keychain',
    key_store_ready: true,
    key_store_problem: null,
    runtimes: ['claude', 'codex'],
  },
};

/** The stand-in's answer, held to the channel's reply schema so that a wrong fake fails here. */
function serviceAnswer(channel: ChannelName): Reply<ChannelName> {
  const value = SERVICE_VALUES[channel];
  const reply = value === undefined ? { ok: false, error: { code: 'INTERNAL_ERROR', message: `no stand-in answer for "${channel}"` } } : { ok: true, value };
  return replySchema(channel).parse(reply) as Reply<ChannelName>;
}

const fake = vi.hoisted(() => ({ current: null as unknown as ReturnType<typeof createFakeElectron> }));

function createFakeElectron() {
  let ready!: () => void;
  const readyPromise = new Promise<void>((resolve) => (ready = resolve));
  const app = Object.assign(new EventEmitter(), {
    isReady: false,
    whenReady: () => readyPromise,
    requestSingleInstanceLock: vi.fn(() => true),
    enableSandbox: vi.fn(),
    getAppPath: () => '/opt/Citadel/resources/app.asar',
    getPath: (name: string) => `/home/operator/${name}`,
    quit: vi.fn(),
  });
  let nextId = 1;
  class WebContents extends EventEmitter {
    readonly id = nextId++;
    readonly sent: unknown[][] = [];
    windowOpenHandler: Handler | null = null;
    isDestroyed = () => false;
    send = (...args: unknown[]) => void this.sent.push(args);
    setWindowOpenHandler = (handler: Handler) => void (this.windowOpenHandler = handler);
  }
  class BrowserWindow extends EventEmitter {
    static readonly all: BrowserWindow[] = [];
    static getAllWindows = () => [...BrowserWindow.all];
    static getFocusedWindow = () => null;
    readonly webContents = new WebContents();
    readonly loaded: string[] = [];
    constructor(readonly options: { webPreferences: Record<string, unknown> }) {
      super();
      BrowserWindow.all.push(this);
      app.emit('web-contents-created', {}, this.webContents);
    }
    loadURL = async (url: string) => void this.loaded.push(url);
    isMinimized = () => false;
    focus = vi.fn();
  }
  class Notification {
    static readonly shown: { title: string; body: string }[] = [];
    static isSupported = () => true;
    constructor(readonly options: { title: string; body: string }) {}
    show = () => void Notification.shown.push(this.options);
  }
  const privileged: { atReady: boolean; schemes: unknown }[] = [];
  const protocolHandlers = new Map<string, (request: { url: string; method: string }) => Promise<Response>>();
  const sessionHandlers: Record<string, Handler> = {};
  return {
    app,
    ready: () => {
      app.isReady = true;
      ready();
    },
    BrowserWindow,
    Notification,
    ipcMain: new FakeIpcMain(),
    dialog: {
      showErrorBox: vi.fn(),
      showOpenDialog: vi.fn(async () => ({ canceled: false, filePaths: ['/home/operator/repo'] })),
      showSaveDialog: vi.fn(async () => ({ canceled: true, filePath: '' })),
    },
    shell: { openExternal: vi.fn(async () => undefined), openPath: vi.fn(async () => '') },
    net: { fetch: vi.fn(async (url: string) => new Response(`served ${url}`, { headers: { 'content-type': 'text/html' } })) },
    privileged,
    protocolHandlers,
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown) => privileged.push({ atReady: app.isReady, schemes }),
      handle: (scheme: string, handler: (request: { url: string; method: string }) => Promise<Response>) => protocolHandlers.set(scheme, handler),
    },
    sessionHandlers,
    session: {
      defaultSession: {
        setPermissionRequestHandler: (handler: Handler) => (sessionHandlers.request = handler),
        setPermissionCheckHandler: (handler: Handler) => (sessionHandlers.check = handler),
        setDevicePermissionHandler: (handler: Handler) => (sessionHandlers.device = handler),
        webRequest: { onHeadersReceived: (handler: Handler) => (sessionHandlers.headers = handler) },
      },
    },
    services: [] as { ctx: Record<string, unknown>; fake: ReturnType<typeof fakeService> }[],
    nodeResult: { ok: true, execPath: '/usr/local/bin/node', version: 'v22.23.5' } as { ok: true; execPath: string; version: string } | { ok: false; problem: string },
  };
}

// The mocked module outlives vi.resetModules(), so each export reads the current test's fake.
vi.mock('electron', () => ({
  get app() {
    return fake.current.app;
  },
  get BrowserWindow() {
    return fake.current.BrowserWindow;
  },
  get dialog() {
    return fake.current.dialog;
  },
  get ipcMain() {
    return fake.current.ipcMain;
  },
  get net() {
    return fake.current.net;
  },
  get Notification() {
    return fake.current.Notification;
  },
  get protocol() {
    return fake.current.protocol;
  },
  get session() {
    return fake.current.session;
  },
  get shell() {
    return fake.current.shell;
  },
}));
vi.mock('../../../main/host/open-context', () => ({
  openOrchestratorContext: async (options: Record<string, unknown>) => ({ options, nodeExecPath: process.execPath }),
}));
vi.mock('../../../main/mission-control/service', () => ({
  createMissionControlService: (ctx: Record<string, unknown>) => {
    const service = fakeService(async (channel) => serviceAnswer(channel));
    fake.current.services.push({ ctx, fake: service });
    return service.service;
  },
}));
vi.mock('../../../main/app/supervisor-node', async (importOriginal) => ({
  ...(await importOriginal<typeof SupervisorNodeModule>()),
  resolveSupervisorNode: async () => fake.current.nodeResult,
}));

async function startApp(nodeResult?: typeof fake.current.nodeResult) {
  if (nodeResult !== undefined) fake.current.nodeResult = nodeResult;
  await import('../../../main/app/main');
  const electron = fake.current;
  electron.ready();
  return electron;
}

async function startedApp() {
  const electron = await startApp();
  await vi.waitFor(() => expect(electron.BrowserWindow.all).toHaveLength(1));
  const [window] = electron.BrowserWindow.all;
  const [service] = electron.services;
  if (window === undefined || service === undefined) throw new Error('the app did not start');
  return { electron, window, service };
}

/** Calls a contract channel as the renderer would, and holds the reply to that channel's reply schema. */
async function invokeChannel(ipcMain: FakeIpcMain, channel: ChannelName, event: ReturnType<typeof senderEvent>, request: unknown): Promise<unknown> {
  return replySchema(channel).parse(await ipcMain.invoke(ipcChannelName(channel), event, request));
}

async function invokeAppChannel(ipcMain: FakeIpcMain, channel: AppChannelName, event: ReturnType<typeof senderEvent>, request: unknown): Promise<unknown> {
  return appReplySchema(channel).parse(await ipcMain.invoke(appIpcChannelName(channel), event, request));
}

const RENDERER_DIR = fileURLToPath(new URL('../../../main/renderer/', import.meta.url));

beforeEach(() => {
  vi.resetModules();
  fake.current = createFakeElectron();
});
afterEach(() => vi.restoreAllMocks());

describe('the Electron entry', () => {
  it('registers app:// as a standard, secure scheme before ready, without bypassing CSP, and enables the sandbox', async () => {
    const electron = await startApp();
    expect(electron.privileged).toEqual([
      { atReady: false, schemes: [{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }] },
    ]);
    expect(JSON.stringify(electron.privileged)).not.toContain('bypassCSP');
    expect(electron.app.enableSandbox).toHaveBeenCalled();
  });

  it('opens one window with the security baseline, loading the renderer from app://', async () => {
    const { window } = await startedApp();
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
    const preload = String(window.options.webPreferences.preload);
    expect([path.basename(path.dirname(preload)), path.basename(preload)]).toEqual(['preload', 'index.cjs']);
    expect(window.loaded).toEqual(['app://citadel/index.html']);
  });

  it('runs the supervisor with the resolved Node and the unpacked supervisor bundle', async () => {
    const { service } = await startedApp();
    expect(service.ctx).toMatchObject({
      nodeExecPath: '/usr/local/bin/node',
      options: { supervisorScript: path.join('/opt/Citadel/resources/app.asar.unpacked', 'out', 'cli', 'supervisor.mjs') },
    });
  });

  it('answers every contract and app channel for its own window only', async () => {
    const { electron, window, service } = await startedApp();
    const ipcMain = electron.ipcMain as FakeIpcMain;
    expect([...ipcMain.handlers.keys()].sort()).toEqual([...CHANNEL_NAMES.map(ipcChannelName), ...APP_CHANNEL_NAMES.map(appIpcChannelName)].sort());
    const own = senderEvent(window.webContents, 'app://citadel/index.html');
    await expect(invokeChannel(ipcMain, 'settings', own, {})).resolves.toEqual({ ok: true, value: SERVICE_VALUES.settings });
    const stranger = senderEvent({ id: window.webContents.id + 100 }, 'app://citadel/index.html');
    await expect(invokeChannel(ipcMain, 'settings', stranger, {})).resolves.toMatchObject({ ok: false, error: { code: 'IPC_SENDER_REFUSED' } });
    expect(service.fake.calls).toEqual([{ channel: 'settings', payload: {} }]);
  });

  it('answers each contract channel within its reply schema, whatever the request', async () => {
    const { electron, window } = await startedApp();
    const own = senderEvent(window.webContents, 'app://citadel/index.html');
    await expect(invokeChannel(electron.ipcMain, 'listForks', own, { state: null })).resolves.toEqual({ ok: true, value: { forks: [] } });
    for (const channel of CHANNEL_NAMES) {
      const reply = await electron.ipcMain.invoke(ipcChannelName(channel), own, {});
      expect(replySchema(channel).safeParse(reply).success, channel).toBe(true);
    }
  });

  it('opens native dialogs for the app channels, proposing saves in the documents folder', async () => {
    const { electron, window } = await startedApp();
    const ipcMain = electron.ipcMain as FakeIpcMain;
    const own = senderEvent(window.webContents, 'app://citadel/index.html');
    await expect(invokeAppChannel(ipcMain, 'chooseRepositoryFolder', own, {})).resolves.toEqual({ ok: true, value: { path: '/home/operator/repo' } });
    await expect(invokeAppChannel(ipcMain, 'saveArtifact', own, { suggested_name: 'f.proof.json', text: '{}' })).resolves.toEqual({
      ok: true,
      value: { saved: false },
    });
    expect(electron.dialog.showSaveDialog).toHaveBeenCalledWith(expect.objectContaining({ defaultPath: path.join('/home/operator/documents', 'f.proof.json') }));
  });

  it('streams service events to the window on EVENT_CHANNEL', async () => {
    const { window, service } = await startedApp();
    const event = { type: 'fork_state', fork_id: 'fork-01jq0000000000000000000000', state: 'running', revision: 1 } as const;
    service.fake.emit(event);
    expect(window.webContents.sent).toEqual([[EVENT_CHANNEL, event]]);
  });

  it('shows a desktop notification from main when a fork becomes ready, not for other states', async () => {
    const { electron, service } = await startedApp();
    const fork = 'fork-01jq0000000000000000000000';
    service.fake.emit({ type: 'fork_state', fork_id: fork, state: 'running', revision: 1 });
    service.fake.emit({ type: 'fork_state', fork_id: fork, state: 'ready', revision: 2 });
    expect(electron.Notification.shown).toEqual([{ title: 'Citadel: fork ready', body: `Fork ${fork} is ready: compare its branches and select one.` }]);
  });

  it('serves only renderer files, each with the CSP', async () => {
    const { electron } = await startedApp();
    const serve = electron.protocolHandlers.get('app');
    if (serve === undefined) throw new Error('app:// is not served');

    const page = await serve({ url: 'app://citadel/', method: 'GET' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers.get('content-type')).toBe('text/html');
    expect(electron.net.fetch).toHaveBeenCalledWith(pathToFileURL(path.join(RENDERER_DIR, 'index.html')).href);

    for (const request of [
      { url: 'app://citadel/assets%2F..%2F..%2F..%2Fpackage.json', method: 'GET' },
      { url: 'app://evil/index.html', method: 'GET' },
      { url: 'app://citadel/index.html', method: 'POST' },
    ]) {
      const refused = await serve(request);
      expect(refused.status, request.url).toBe(404);
      expect(refused.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    }
    expect(electron.net.fetch).toHaveBeenCalledTimes(1);
  });

  it('denies permissions by default and adds the CSP to every response', async () => {
    const { electron } = await startedApp();
    const { request, check, device, headers } = electron.sessionHandlers as Record<string, (...args: unknown[]) => unknown>;
    const granted: boolean[] = [];
    request?.({}, 'media', (allowed: boolean) => granted.push(allowed), { requestingUrl: 'app://citadel/index.html' });
    expect(granted).toEqual([false]);
    expect(check?.({}, 'geolocation', 'app://citadel')).toBe(false);
    expect(device?.({})).toBe(false);
    const answered: unknown[] = [];
    headers?.({ responseHeaders: { 'content-type': ['text/html'] } }, (response: unknown) => answered.push(response));
    expect(answered).toEqual([{ responseHeaders: { 'content-type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } }]);
  });

  it('denies navigation and new windows, opening only https links outside', async () => {
    const { electron, window } = await startedApp();
    const contents = window.webContents;
    for (const url of ['https://github.com/citadel', 'file:///etc/passwd', 'app://citadel/other.html', 'javascript:alert(1)']) {
      const event = { url, preventDefault: vi.fn() };
      contents.emit('will-navigate', event);
      expect(event.preventDefault, url).toHaveBeenCalled();
      expect(contents.windowOpenHandler?.({ url } as never)).toEqual({ action: 'deny' });
    }
    const attach = { preventDefault: vi.fn() };
    contents.emit('will-attach-webview', attach);
    expect(attach.preventDefault).toHaveBeenCalled();
    expect(electron.shell.openExternal.mock.calls).toEqual([['https://github.com/citadel'], ['https://github.com/citadel']]);
  });

  it('explains a missing Node and quits without opening a window or answering IPC', async () => {
    const electron = await startApp({ ok: false, problem: 'no "node" on PATH and CITADEL_NODE is not set' });
    await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalled());
    expect(electron.dialog.showErrorBox).toHaveBeenCalledWith(expect.any(String), expect.stringContaining('CITADEL_NODE'));
    expect(electron.BrowserWindow.all).toEqual([]);
    expect((electron.ipcMain as FakeIpcMain).handlers.size).toBe(0);
  });

  it('leaves a second instance to the first', async () => {
    fake.current.app.requestSingleInstanceLock.mockReturnValue(false);
    const electron = await startApp();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(electron.app.quit).toHaveBeenCalled();
    expect(electron.BrowserWindow.all).toEqual([]);
  });
});
