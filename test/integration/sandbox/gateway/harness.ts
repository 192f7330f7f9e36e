import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { WireExchange } from '../../../../shared/runtime/wire';
import type { GatewayRule } from '../../../../shared/sandbox/containment-policy';
import type { EgressDenial } from '../../../../main/sandbox/egress/egress-denial';
import { makeBridgeSocketPath } from '../../../../main/sandbox/egress/socket-dir';
import { createGatewayHandler, type GatewayOptions } from '../../../../main/sandbox/gateway/gateway-handler';
import { startGateway, type GatewayServer, type TlsInterception } from '../../../../main/sandbox/gateway/start-gateway';

export const PLACEHOLDER = 'citadel-placeholder-0123456789abcdef0123456789abcdef';
export const REAL_KEY = 'sk-ant-REAL-operator-key';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export type Script = (request: SeenRequest, response: ServerResponse) => void | Promise<void>;

export interface Upstream {
  readonly origin: string;
  readonly seen: SeenRequest[];
}

const cleanups: (() => Promise<void> | void)[] = [];
/** Registers the harness's cleanup: every server and gateway a test started ends after it. */
export function useGatewayCleanup(): void {
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
}

/** A scripted provider on loopback (https with `tls`) that records every request it receives, body included. */
export async function scriptedUpstream(script: Script, tls?: { key: string; cert: string }): Promise<Upstream> {
  const seen: SeenRequest[] = [];
  const serve = (incoming: IncomingMessage, response: ServerResponse): void => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const recorded = { method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers, body: Buffer.concat(chunks) };
      seen.push(recorded);
      void script(recorded, response);
    });
  };
  const server: Server = tls === undefined ? createHttpServer(serve) : createHttpsServer(tls, serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  cleanups.push(() => void server.closeAllConnections());
  const { port } = server.address() as AddressInfo;
  return { origin: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`, seen };
}

export interface TestGateway {
  readonly socketPath: string;
  readonly server: GatewayServer;
  readonly exchanges: WireExchange[];
  readonly denials: EgressDenial[];
  readonly calls: { budgetExceeded: number; credentialFailed: number };
}

/** A gateway on a fresh private socket, recording what it reports. */
export async function startTestGateway(rule: GatewayRule, overrides: Partial<GatewayOptions> = {}, tls?: TlsInterception): Promise<TestGateway> {
  const exchanges: WireExchange[] = [];
  const denials: EgressDenial[] = [];
  const calls = { budgetExceeded: 0, credentialFailed: 0 };
  const handler = createGatewayHandler({
    rule,
    placeholder: PLACEHOLDER,
    credential: { headers: () => Promise.resolve({ 'x-api-key': REAL_KEY }) },
    budgetTokens: null,
    onExchange: (exchange) => exchanges.push(exchange),
    onDenial: (denial) => denials.push(denial),
    onBudgetExceeded: () => (calls.budgetExceeded += 1),
    onCredentialFailed: () => (calls.credentialFailed += 1),
    ...overrides,
  });
  const socketPath = await makeBridgeSocketPath();
  const server = await startGateway({ socketPath, handler, tls: tls ?? null });
  cleanups.push(() => server.close());
  return { socketPath, server, exchanges, denials, calls };
}

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Call {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
}

/** One request to the gateway's socket (`to: { socketPath }`) or straight to an upstream origin (`to: { origin }`). */
export function call(to: { socketPath: string } | { origin: string }, what: Call): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = 'socketPath' in to ? { socketPath: to.socketPath } : { host: new URL(to.origin).hostname, port: Number(new URL(to.origin).port) };
    const sent = request({ ...target, method: what.method ?? 'POST', path: what.path, headers: what.headers ?? {}, agent: false }, (answer) => {
      let body = '';
      answer.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body }));
      answer.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(what.body);
  });
}

/** Waits until `check` holds (the exchange is recorded once the answer has gone out, a moment after the client read it). */
export async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A CA and a leaf for 127.0.0.1 signed by it, made with the openssl CLI in `dir`. */
export function testCa(dir: string): { ca: string; key: string; cert: string } {
  const file = (name: string): string => path.join(dir, name);
  const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=citadel gateway test CA');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(file('leaf.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n');
  openssl('x509', '-req', '-in', file('leaf.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('leaf.pem'), '-days', '2', '-extfile', file('leaf.ext'));
  return { ca: readFileSync(file('ca.pem'), 'utf8'), key: readFileSync(file('leaf.key'), 'utf8'), cert: readFileSync(file('leaf.pem'), 'utf8') };
}

/** An SSE stream in the Anthropic Messages dialect, as the recordings' scripted server sent it. */
export function anthropicStream(model: string, input = 123, output = 45): string {
  const events = [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model, content: [], usage: { input_tokens: input, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'FAKE-REPLY: hello from the fake Anthropic server.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: output } },
    { type: 'message_stop' },
  ];
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

export function openAiStream(model: string, input = 321, output = 54): string {
  const events = [
    { type: 'response.created', response: { id: 'resp_1', object: 'response', model, status: 'in_progress', usage: null } },
    { type: 'response.output_text.delta', delta: 'FAKE-REPLY: hello from the fake Ollama server.' },
    { type: 'response.completed', response: { id: 'resp_1', object: 'response', model, status: 'completed', usage: { input_tokens: input, output_tokens: output, total_tokens: input + output } } },
  ];
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

export interface GeminiUsage {
  readonly prompt: number;
  readonly candidates: number;
  readonly thoughts?: number;
  readonly cached?: number;
}

/**
 * A Gemini API stream (`?alt=sse`) as the recordings' scripted server sent it to Gemini CLI 0.61.0, with
 * what the real API adds: CRLF event ends, a usage report on every chunk (cumulative; the last is
 * final), thoughts counted apart from the candidates, the finishReason on the last chunk.
 */
export function geminiStream(modelVersion: string, usage: GeminiUsage = { prompt: 321, candidates: 54, thoughts: 20, cached: 100 }): string {
  const report = (candidates: number, thoughts: number) => ({
    promptTokenCount: usage.prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: usage.prompt + candidates + thoughts,
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    ...(usage.cached === undefined ? {} : { cachedContentTokenCount: usage.cached }),
  });
  const chunks = [
    { candidates: [{ content: { role: 'model', parts: [{ text: 'FAKE-REPLY: hello from the ' }] }, index: 0 }], usageMetadata: report(1, usage.thoughts ?? 0) },
    { candidates: [{ content: { role: 'model', parts: [{ text: 'scripted model server. ✓' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: report(usage.candidates, usage.thoughts ?? 0) },
  ];
  return chunks.map((chunk) => `data: ${JSON.stringify({ ...chunk, modelVersion, responseId: 'fake-resp-1' })}\r\n\r\n`).join('');
}

/**
 * An OpenAI Chat Completions stream as the recordings' scripted server sent it to OpenCode 1.18.33 and
 * Copilot CLI 1.0.102: chunks naming the model, a finish_reason, then (`usage`: asked with
 * stream_options.include_usage) a last chunk without choices carrying the usage, then `[DONE]`.
 */
export function chatStream(model: string, usage: { prompt: number; completion: number } | null = { prompt: 321, completion: 54 }): string {
  const chunk = (choices: object[], extra: object = {}) => ({ id: 'chatcmpl-fake-1', object: 'chat.completion.chunk', created: 1_790_000_000, model, choices, ...extra });
  const chunks = [
    chunk([{ index: 0, delta: { role: 'assistant', content: 'FAKE-REPLY: hello' }, finish_reason: null }], usage === null ? {} : { usage: null }),
    chunk([{ index: 0, delta: { content: ' from the scripted model server.' }, finish_reason: null }], usage === null ? {} : { usage: null }),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }], usage === null ? {} : { usage: null }),
    ...(usage === null ? [] : [chunk([], { usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion } })]),
  ];
  return `${chunks.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')}data: [DONE]\n\n`;
}
