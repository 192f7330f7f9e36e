import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../../renderer/src/lib/client';
import { STARTUP_REPLIES } from '../../renderer/src/lib/startup-replies';
import { bridgeTransport, primedTransport, webTransport, windowTransport, type Transport } from '../../renderer/src/lib/transport';
import type { CitadelBridge } from '../../shared/ipc/contract';
import { API_EVENTS_PATH, TOKEN_HEADER, TOKEN_QUERY } from '../../shared/ipc/web-protocol';
import { FORK_ID, forkStatus, forkSummary } from './support/fixtures';

// jsdom has no EventSource; this records what the transport opens.
const opened: FakeSource[] = [];
class FakeSource {
  onmessage: ((message: MessageEvent<unknown>) => void) | null = null;
  onopen: (() => void) | null = null;
  closed = false;
  constructor(readonly url: URL) {
    opened.push(this);
  }
  close(): void {
    this.closed = true;
  }
}
const NoEvents = FakeSource as unknown as typeof EventSource;

const transportAnswering = (answer: () => unknown): Transport => ({
  call: async () => answer(),
  subscribe: () => () => undefined,
  appChannels: new Set(),
  callApp: async () => answer(),
});

describe('client', () => {
  it('passes a reply that matches the contract', async () => {
    const status = forkStatus();
    const client = createClient(transportAnswering(() => ({ ok: true, value: status })));
    expect(await client.call('forkStatus', { fork_id: FORK_ID })).toEqual({ ok: true, value: status });
  });

  it('turns a reply outside the contract into a typed error', async () => {
    const client = createClient(transportAnswering(() => ({ ok: true, value: { ...forkStatus(), trusted: true } })));
    const reply = await client.call('forkStatus', { fork_id: FORK_ID });
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error).toMatchObject({ code: 'INTERNAL_ERROR', details: { channel: 'forkStatus' } });
  });

  it('turns a failed transport into a typed error instead of throwing', async () => {
    const client = createClient({ ...transportAnswering(() => null), call: () => Promise.reject(new Error('connection refused')) });
    const reply = await client.call('settings', {});
    expect(reply).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR', message: expect.stringContaining('connection refused') } });
  });

  it('passes only events that parse with the contract event schema, in the order they came', async () => {
    let push: (raw: unknown) => void = () => undefined;
    const client = createClient({ ...transportAnswering(() => null), subscribe: (listener) => ((push = listener), () => undefined) });
    const seen: unknown[] = [];
    client.onEvent((event) => seen.push(event));
    push({ type: 'fork_state', fork_id: FORK_ID, state: 'ready', revision: 3 });
    push({ type: 'fork_state', fork_id: FORK_ID, state: 'winning', revision: 3 });
    push('<script>');
    push({ type: 'fork_state', fork_id: FORK_ID, state: 'landed', revision: 4 });
    // Events wait for the contract's schemas, which load on their own (client.ts).
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    expect(seen).toEqual([
      { type: 'fork_state', fork_id: FORK_ID, state: 'ready', revision: 3 },
      { type: 'fork_state', fork_id: FORK_ID, state: 'landed', revision: 4 },
    ]);
  });

  it('calls the named bridge function and parses what it returns', async () => {
    const settings = vi.fn(async () => ({ ok: true, value: { wrong: true } }));
    const bridge = { settings, onEvent: () => () => undefined } as unknown as CitadelBridge;
    const client = createClient(bridgeTransport(bridge));
    const reply = await client.call('settings', {});
    expect(settings).toHaveBeenCalledWith({});
    expect(reply.ok).toBe(false);
    expect(client.app('saveArtifact')).toBeNull();
  });

  it('offers an app channel only when the bridge has it, and parses its reply too', async () => {
    const saveArtifact = vi.fn(async () => ({ ok: true, value: { saved: true } }));
    const chooseRepositoryFolder = vi.fn(async () => ({ ok: true, value: { path: 42 } }));
    const bridge = { saveArtifact, chooseRepositoryFolder, onEvent: () => () => undefined } as unknown as CitadelBridge;
    const client = createClient(bridgeTransport(bridge));
    const save = client.app('saveArtifact');
    if (save === null) throw new Error('saveArtifact missing');
    expect(await save({ suggested_name: 'x.replay.json', text: '{}' })).toEqual({ ok: true, value: { saved: true } });
    expect(saveArtifact).toHaveBeenCalledWith({ suggested_name: 'x.replay.json', text: '{}' });
    const choose = client.app('chooseRepositoryFolder');
    expect(await choose?.({})).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
    const web = createClient(webTransport('http://127.0.0.1:4100', 'tok', vi.fn(), NoEvents));
    expect(web.app('saveArtifact')).toBeNull();
  });
});

describe('web transport', () => {
  it('posts to the channel path with the token header and reads the reply envelope whatever the status', async () => {
    const fetchFn = vi.fn(async () => new Response(JSON.stringify({ ok: false, error: { code: 'USAGE_ERROR', message: 'bad token' } }), { status: 403 }));
    const client = createClient(webTransport('http://127.0.0.1:4100', 'tok', fetchFn, NoEvents));
    const reply = await client.call('readiness', {});
    expect(reply).toEqual({ ok: false, error: { code: 'USAGE_ERROR', message: 'bad token' } });
    const [url, init] = fetchFn.mock.calls[0] as unknown as [URL, RequestInit];
    expect(String(url)).toBe('http://127.0.0.1:4100/api/call/readiness');
    expect(init).toMatchObject({ method: 'POST', body: '{}', headers: { [TOKEN_HEADER]: 'tok' } });
  });

  it('says when the host answers without JSON, and when the body stops arriving', async () => {
    const html = createClient(webTransport('http://127.0.0.1:4100', 'tok', vi.fn(async () => new Response('<h1>Bad gateway</h1>', { status: 502 })), NoEvents));
    expect(await html.call('readiness', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR', message: 'the readiness call did not complete: the web host answered HTTP 502 without a JSON reply' } });
    const cut = new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode('{"ok":')), controller.error(new TypeError('network error'))) });
    const dropped = createClient(webTransport('http://127.0.0.1:4100', 'tok', vi.fn(async () => new Response(cut, { status: 200 })), NoEvents));
    expect(await dropped.call('readiness', {})).toMatchObject({ ok: false, error: { message: 'the readiness call did not complete: network error' } });
  });

  it('refuses to call without a token', async () => {
    const fetchFn = vi.fn();
    const client = createClient(webTransport('http://127.0.0.1:4100', null, fetchFn, NoEvents));
    const reply = await client.call('settings', {});
    expect(reply).toMatchObject({ ok: false, error: { message: expect.stringContaining('no access token') } });
    expect(fetchFn).not.toHaveBeenCalled();
  });

  it('opens one event stream for all listeners and closes it after the last one leaves', async () => {
    opened.length = 0;
    const client = createClient(webTransport('http://127.0.0.1:4100', 't k', vi.fn(), NoEvents));
    const a: unknown[] = [];
    const b: unknown[] = [];
    const stopA = client.onEvent((event) => a.push(event));
    const stopB = client.onEvent((event) => b.push(event));
    expect(opened).toHaveLength(1);
    const [source] = opened;
    if (source === undefined) throw new Error('no source');
    expect(source.url.pathname).toBe(API_EVENTS_PATH);
    expect(source.url.searchParams.get(TOKEN_QUERY)).toBe('t k');
    const event = { type: 'runtime', fork_id: FORK_ID, branch_id: 'branch-claude', phase: 'launched' };
    source.onmessage?.(new MessageEvent('message', { data: JSON.stringify(event) }));
    source.onmessage?.(new MessageEvent('message', { data: 'not json' }));
    await vi.waitFor(() => expect(a).toEqual([event]));
    expect(b).toEqual([event]);
    stopA();
    expect(source.closed).toBe(false);
    stopB();
    expect(source.closed).toBe(true);
  });

  it('tells each subscriber when the stream connects and reconnects, so state read before can be read again', () => {
    opened.length = 0;
    const client = createClient(webTransport('http://127.0.0.1:4100', 'tok', vi.fn(), NoEvents));
    const opens = { a: 0, b: 0 };
    const stopA = client.onEvent(() => undefined, () => (opens.a += 1));
    client.onEvent(() => undefined, () => (opens.b += 1));
    client.onEvent(() => undefined);
    const [source] = opened;
    if (source === undefined) throw new Error('no source');
    expect(opens).toEqual({ a: 0, b: 0 });
    source.onopen?.();
    expect(opens).toEqual({ a: 1, b: 1 });
    stopA();
    // EventSource reconnects by itself after a drop; events in the gap were missed.
    source.onopen?.();
    expect(opens).toEqual({ a: 1, b: 2 });
  });
});


describe('the contract, loaded beside the first page', () => {
  const listReply = { ok: true, value: { forks: [forkSummary()] } };
  const slowContract = () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const load = vi.fn(async () => {
      await gate;
      return import('../../renderer/src/lib/contract-schemas');
    });
    return { load, release };
  };

  it('sends each call before its schema has loaded, and parses the first page’s list without the rest of the contract', async () => {
    const { load, release } = slowContract();
    const calls: string[] = [];
    const client = createClient(
      { ...transportAnswering(() => null), call: async (channel) => (calls.push(channel), channel === 'listForks' ? listReply : { ok: true, value: forkStatus() }) },
      { startup: STARTUP_REPLIES, load },
    );
    expect(await client.call('listForks', { state: null })).toEqual(listReply);
    expect(load).not.toHaveBeenCalled();

    const status = client.call('forkStatus', { fork_id: FORK_ID });
    await vi.waitFor(() => expect(calls).toEqual(['listForks', 'forkStatus']));
    release();
    expect(await status).toEqual({ ok: true, value: forkStatus() });
  });

  it('still refuses a malformed list through the fast path, with zod’s own message', async () => {
    const client = createClient(transportAnswering(() => ({ ok: true, value: { forks: [{ ...forkSummary(), state: 'winning' }] } })));
    const reply = await client.call('listForks', { state: null });
    expect(reply).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR', message: expect.stringContaining('listForks reply does not match the contract') } });
  });

  it('checks a typed error from the list with the contract, loaded then, and says so when it cannot load', async () => {
    const refusal = { ok: false, error: { code: 'FORK_NOT_FOUND', message: 'no such fork' } };
    const load = vi.fn().mockRejectedValueOnce(new Error('chunk missing')).mockImplementation(() => import('../../renderer/src/lib/contract-schemas'));
    const client = createClient(transportAnswering(() => refusal), { startup: STARTUP_REPLIES, load });
    expect(await client.call('listForks', { state: null })).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR', message: expect.stringContaining('could not be checked: the contract did not load (chunk missing)') } });
    expect(await client.call('listForks', { state: null })).toEqual(refusal);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('answers a typed error when the contract cannot load, and tries again on the next call', async () => {
    const load = vi.fn().mockRejectedValueOnce(new Error('chunk missing')).mockImplementation(() => import('../../renderer/src/lib/contract-schemas'));
    const client = createClient(transportAnswering(() => ({ ok: true, value: forkStatus() })), { startup: STARTUP_REPLIES, load });
    expect(await client.call('forkStatus', { fork_id: FORK_ID })).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR', message: expect.stringContaining('chunk missing') } });
    expect(await client.call('forkStatus', { fork_id: FORK_ID })).toEqual({ ok: true, value: forkStatus() });
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('events while the contract loads', () => {
  it('never reaches a listener that left while its event waited, and tells a subscriber of a gap when the schemas cannot load', async () => {
    let push: (raw: unknown) => void = () => undefined;
    const transport = { ...transportAnswering(() => null), subscribe: (listener: (raw: unknown) => void) => ((push = listener), () => undefined) };
    const event = { type: 'fork_state', fork_id: FORK_ID, state: 'ready', revision: 3 };

    const slow = createClient(transport, { startup: STARTUP_REPLIES, load: () => new Promise((resolve) => setTimeout(() => resolve(import('../../renderer/src/lib/contract-schemas')), 20)) });
    const seen: unknown[] = [];
    const leave = slow.onEvent((e) => seen.push(e));
    push(event);
    leave();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(seen).toEqual([]);

    const broken = createClient(transport, { startup: STARTUP_REPLIES, load: () => Promise.reject(new Error('chunk missing')) });
    let gaps = 0;
    broken.onEvent(() => seen.push('never'), () => (gaps += 1));
    push(event);
    await vi.waitFor(() => expect(gaps).toBe(1));
    expect(seen).toEqual([]);
  });
});

describe('primed transport', () => {
  it('answers the first matching call with the read sent early, and sends every other call as usual', async () => {
    const sent: [string, unknown][] = [];
    const inner: Transport = { ...transportAnswering(() => null), call: async (channel, request) => (sent.push([channel, request]), { n: sent.length }) };
    const primed = primedTransport(inner, [{ channel: 'listForks', request: { state: null } }]);
    expect(sent).toEqual([['listForks', { state: null }]]);
    expect(await primed.call('listForks', { state: null })).toEqual({ n: 1 });
    expect(await primed.call('listForks', { state: null })).toEqual({ n: 2 });
    expect(await primed.call('listForks', { state: 'ready' })).toEqual({ n: 3 });
    expect(sent).toHaveLength(3);
  });

  it('drops an early answer nobody claimed in the task that sent it, rather than hand it out stale later', async () => {
    let sent = 0;
    const primed = primedTransport({ ...transportAnswering(() => null), call: async () => ({ n: (sent += 1) }) }, [{ channel: 'listForks', request: { state: null } }]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await primed.call('listForks', { state: null })).toEqual({ n: 2 });
  });

  it('primes the web host’s first list read, never the desktop bridge’s (whose stream reports no open)', () => {
    const fetchFn = vi.fn(async () => new Response('{}'));
    const web = { citadel: undefined, location: new URL('http://127.0.0.1:4100/?token=tok'), fetch: fetchFn, EventSource: NoEvents } as unknown as Parameters<typeof windowTransport>[0];
    windowTransport(web);
    expect(fetchFn).toHaveBeenCalledTimes(1);
    expect(String((fetchFn.mock.calls[0] as unknown as [URL])[0])).toBe('http://127.0.0.1:4100/api/call/listForks');
    const listForks = vi.fn(async () => ({ ok: true, value: { forks: [] } }));
    windowTransport({ citadel: { listForks, onEvent: () => () => undefined } } as unknown as Parameters<typeof windowTransport>[0]);
    expect(listForks).not.toHaveBeenCalled();
    const tokenless = { citadel: undefined, location: new URL('http://127.0.0.1:4100/'), fetch: fetchFn, EventSource: NoEvents } as unknown as Parameters<typeof windowTransport>[0];
    windowTransport(tokenless);
    expect(fetchFn).toHaveBeenCalledTimes(1);
  });
});
