import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WireExchange, WireOutcome, WireRefusal } from '../../../shared/runtime/wire';
import type { GatewayRule } from '../../../shared/sandbox/containment-policy';
import { DENIAL_STATUS, parseAuthority } from '../egress/connect-request';
import type { EgressDenial, EgressDenialReason } from '../egress/egress-denial';
import { endToEnd, pathOf, recordedPath } from '../egress/provider-proxy';
import { createAnswerWitness, type AnswerReport } from './answer-witness';
import { denialReasonOf, writeRefusal } from './gateway-refusal';
import { DEFAULT_MAX_BODY_BYTES, readRequestBody, type BodyPool } from './request-body';
import { hasDuplicateKey, judgeRequestBody } from './request-rules';
import type { UpstreamCredential } from '../../runtimes/credentials/upstream-credential';
import { DIALECTS } from './dialects/dialects';
import { inFlightSlots } from './in-flight-slots';
import { upstreamClient } from './upstream-client';
import { checkPlaceholder, upstreamHeaders } from './upstream-headers';

export interface GatewayOptions {
  readonly rule: GatewayRule;
  readonly placeholder: string;
  readonly credential: UpstreamCredential;
  /** input + output tokens the provider may report before further requests are refused; null: none. */
  readonly budgetTokens: number | null;
  readonly onExchange: (exchange: WireExchange) => void;
  readonly onDenial: (denial: EgressDenial) => void;
  /**
   * Called once, at the first request refused because the witnessed tokens reached the budget: a
   * runtime whose last answer crossed it and that asks nothing more still ends as it would have.
   */
  readonly onBudgetExceeded: () => void;
  /** Called once, the first time the credential cannot be obtained or refreshed. */
  readonly onCredentialFailed: () => void;
  /** An extra PEM CA trusted for the upstream (tests' scripted upstreams), besides Node's CAs. */
  readonly upstreamCa?: string;
  readonly maxBodyBytes?: number;
}

export interface GatewayHandler {
  /** Serves one request of the runtime (plain, or decrypted by a TLS interception). */
  handle(request: IncomingMessage, response: ServerResponse): void;
  /** Refuses what never became a request (a bad head, CONNECT, an upgrade): journaled, then the socket ends. */
  refuseSocket(socket: Duplex, reason: EgressDenialReason, request?: IncomingMessage): void;
  /** Ends every provider connection. */
  close(): void;
}

/**
 * With a budget, requests at the provider at once: the budget is looked at again right before each
 * is sent, so at most this many answers are spent uncounted. Two, not one: a runtime's side request
 * (a title, a summary) need not wait behind its main stream.
 */
export const BUDGETED_IN_FLIGHT = 2;

interface Upstreamed {
  readonly answer: IncomingMessage;
  readonly status: number;
}

/**
 * The provider gateway (issue 28): the runtime's only way to its provider. Each request is checked
 * fail-closed (route, placeholder, budget, body), forwarded with the real credential, and its answer
 * streamed back as it comes while the witness reads the model and usage the provider reported; one
 * WireExchange per request, refused ones included, and an egress denial per refusal.
 */
export function createGatewayHandler(options: GatewayOptions): GatewayHandler {
  const { rule, credential } = options;
  const dialect = DIALECTS[rule.api];
  const allowed = new Set(rule.routes.map((route) => `${route.method} ${route.path}`));
  const upstream = upstreamClient(rule.upstream, options.upstreamCa);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Four full-size bodies at once: far above a runtime's parallel requests (a few MiB each), far below the supervisor's memory.
  const bodies: BodyPool = { held: 0, max: 4 * maxBodyBytes };
  const once = (callback: () => void): (() => void) => {
    let called = false;
    return () => {
      if (called) return;
      called = true;
      callback();
    };
  };
  const budgetExceeded = once(options.onBudgetExceeded);
  const credentialFailed = once(options.onCredentialFailed);
  let spentTokens = 0;
  // A 2xx answer that did not end with what it used (none reported, an event skipped, or the answer
  // cut short): from then on the budget cannot be shown to hold.
  let unmetered = false;
  // Waiting requests are queued, not refused: the budget is not spent yet, and a refusal would end the run.
  const slots = inFlightSlots(options.budgetTokens === null ? null : BUDGETED_IN_FLIGHT);
  const overBudget = (): boolean => options.budgetTokens !== null && (unmetered || spentTokens >= options.budgetTokens);
  const deny = (reason: EgressDenialReason, method?: string, url?: string): void =>
    options.onDenial({ host: upstream.host, port: upstream.port, reason, ...(method === undefined ? {} : { method: method.slice(0, 32), path: recordedPath(url ?? '') }) });

  const serve = async (client: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = performance.now();
    const at = new Date().toISOString();
    const method = client.method ?? '';
    const url = client.url ?? '';
    const record = (outcome: WireOutcome, fields: Partial<WireExchange>): void =>
      options.onExchange({
        at,
        method: method.slice(0, 16),
        path: recordedPath(url),
        outcome,
        refusal: null,
        status: null,
        requested_model: null,
        served_model: null,
        input_tokens: null,
        output_tokens: null,
        first_byte_ms: null,
        duration_ms: Math.round(performance.now() - started),
        ...fields,
      });
    const refuse = (refusal: WireRefusal, requestedModel: string | null = null, status: number | null = null): void => {
      deny(denialReasonOf(refusal), method, url);
      writeRefusal(response, rule.api, refusal);
      record(status === null ? 'refused' : 'upstream_error', { refusal, requested_model: requestedModel, status });
    };

    const path = pathOf(url);
    const route = dialect.routePath(path);
    if (route === null || !allowed.has(`${method} ${route}`)) return refuse('route_not_allowed');
    const queryRefusal = dialect.judgeQuery(path, queryOf(url));
    if (queryRefusal !== null) return refuse(queryRefusal);
    const placeholder = checkPlaceholder(client.headers, options.placeholder);
    if (placeholder === 'mismatch') return refuse('placeholder_mismatch');
    if (overBudget()) {
      // Recorded before the run is ended: the refused exchange is what says the budget decided the branch.
      refuse('budget_exceeded');
      return budgetExceeded();
    }

    let body: Buffer | null = null;
    let requestedModel: string | null = null;
    if (method === 'GET' || method === 'HEAD') {
      // Node frames no body of a GET or HEAD upstream: its bytes would reach the provider as a request of their own.
      if (client.headers['transfer-encoding'] !== undefined || (client.headers['content-length'] ?? '0') !== '0') return refuse('body_unparsable');
    } else {
      const encoding = client.headers['content-encoding'];
      if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return refuse('body_encoding_unsupported');
      const read = await readRequestBody(client, maxBodyBytes, bodies);
      if (read.state === 'broken') return void response.destroy();
      if (read.state === 'too_large') return refuse('body_too_large');
      const length = read.body.length;
      // Given back once the exchange is over (a client already gone has closed the response).
      if (response.destroyed) bodies.held -= length;
      else response.once('close', () => (bodies.held -= length));
      const verdict = judgeRequestBody(rule.api, parseJson(read.body), rule.models, { path, budgeted: options.budgetTokens !== null });
      if (!verdict.allowed) return refuse(verdict.refusal, verdict.requestedModel);
      body = read.body;
      requestedModel = verdict.requestedModel;
    }

    // Holds a slot of `slots` from the budget's last look to the answer's end.
    const forward = async (): Promise<void> => {
      if (overBudget()) {
        refuse('budget_exceeded', requestedModel);
        return budgetExceeded();
      }
      const abandon = new AbortController();
      // With a budget, a request the client leaves is still read to its end: usage comes last (OpenAI's
      // completion event, Anthropic's message_delta), and a client leaving just before it would spend uncounted.
      const readThrough = options.budgetTokens !== null;
      response.once('close', () => {
        if (!response.writableFinished && !readThrough) abandon.abort();
      });
      const send = async (): Promise<Upstreamed | WireRefusal> => {
        const headers = await credential.headers().catch(() => null);
        if (headers === null) return 'credential_unavailable';
        // A request with no credential at all passes only to a provider that takes none (a local Ollama).
        if (placeholder === 'absent' && Object.keys(headers).length > 0) return 'placeholder_mismatch';
        const answer = await upstream.send(method, url, upstreamHeaders(client.rawHeaders, headers, body === null ? null : body.length), body, abandon.signal);
        return { answer, status: answer.statusCode ?? 502 };
      };

      let sent: Upstreamed | WireRefusal;
      try {
        sent = await send();
        if (typeof sent !== 'string' && sent.status === 401 && credential.refreshAfterUnauthorized !== undefined) {
          sent.answer.resume();
          const refreshed = await credential.refreshAfterUnauthorized().catch(() => false);
          if (!refreshed) {
            credentialFailed();
            return refuse('credential_unavailable', requestedModel, 401);
          }
          sent = await send();
        }
      } catch {
        // The client sees what it would see of the provider: a connection that ends, no answer.
        response.destroy();
        return record('aborted', { requested_model: requestedModel });
      }
      if (typeof sent === 'string') {
        if (sent === 'credential_unavailable') credentialFailed();
        return refuse(sent, requestedModel);
      }
      const firstByteMs = Math.round(performance.now() - started);
      const { report, delivered } = await relay(sent.answer, response, createAnswerWitness(rule.api, sent.answer.headers['content-type']), readThrough);
      spentTokens += (report.inputTokens ?? 0) + (report.outputTokens ?? 0);
      // The usage an answer ends with is its usage (read on the wire whether or not the client stayed);
      // one that ended before it (a broken stream, an abandoned one without a budget) reported none.
      const metered = report.completed && report.inputTokens !== null && report.outputTokens !== null;
      if (method === 'POST' && sent.status < 300 && !metered) unmetered = true;
      record(sent.status >= 400 ? 'upstream_error' : report.completed && delivered ? 'completed' : 'aborted', {
        status: sent.status,
        requested_model: requestedModel,
        served_model: report.servedModel,
        input_tokens: report.completed ? report.inputTokens : null,
        output_tokens: report.completed ? report.outputTokens : null,
        first_byte_ms: firstByteMs,
      });
    };

    const gone = new AbortController();
    if (response.destroyed) gone.abort();
    else response.once('close', () => gone.abort());
    const release = await slots.acquire(gone.signal);
    // Left while queued: it never reached the provider.
    if (release === null) return record('aborted', { requested_model: requestedModel });
    try {
      await forward();
    } finally {
      release();
    }
  };

  return {
    handle: (client, response) => {
      void serve(client, response).catch(() => response.destroy());
    },
    refuseSocket: (socket, reason, request) => {
      // A CONNECT names where it wanted to go, as the egress bridge records it; anything else is a request to the upstream.
      if (request?.method === 'CONNECT') {
        const target = parseAuthority(request.url ?? '');
        options.onDenial({ host: target?.host ?? null, port: target?.port ?? null, reason });
      } else {
        deny(reason, request?.method, request?.url);
      }
      socket.on('error', () => socket.destroy());
      socket.end(`HTTP/1.1 ${DENIAL_STATUS[reason]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, () => socket.destroy());
    },
    close: () => upstream.close(),
  };
}

/**
 * Streams the provider's answer to the client as it comes (headers flushed first: an SSE stream's
 * first event must not wait), feeding the witness on the way; resolves with what it saw, and whether
 * the client had all of it. With `readThrough`, a client gone before the end leaves the answer read
 * on by the witness alone (recorded as not completed: the client never had it).
 */
function relay(answer: IncomingMessage, response: ServerResponse, witness: ReturnType<typeof createAnswerWitness>, readThrough: boolean): Promise<{ report: AnswerReport; delivered: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    // A client gone before the head arrived (only with readThrough: else the request was abandoned) gets nothing written.
    let clientGone = response.destroyed;
    const settle = (ended: boolean): void => {
      if (settled) return;
      settled = true;
      if (!ended) {
        answer.destroy();
        response.destroy();
      }
      resolve({ report: witness.finish(ended), delivered: !clientGone });
    };
    // Provider cookies belong to the host's session with it, not to the sandbox.
    const headers = endToEnd(answer.rawHeaders).filter((_, index, all) => all[index - (index % 2)]?.toLowerCase() !== 'set-cookie');
    if (!clientGone) {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
      response.flushHeaders();
    }
    answer.on('data', (chunk: Buffer) => {
      witness.push(chunk);
      if (!clientGone && !response.write(chunk)) answer.pause();
    });
    response.on('drain', () => answer.resume());
    answer.once('end', () => (clientGone ? settle(true) : response.end(() => settle(true))));
    answer.once('error', () => settle(false));
    answer.once('close', () => {
      if (!answer.complete) settle(false);
    });
    response.once('close', () => {
      if (response.writableFinished) return;
      if (!readThrough) return settle(false);
      clientGone = true;
      // Gone between the answer's end and the response's: that end callback never comes.
      if (answer.readableEnded) settle(true);
      else answer.resume();
    });
  });
}

/** The query string without its `?` ('' when there is none). */
function queryOf(url: string): string {
  const mark = url.indexOf('?');
  return mark === -1 ? '' : url.slice(mark + 1);
}

/** The body as the rules read it; one naming a key twice is unparsable (the provider might read the other). */
function parseJson(body: Buffer): unknown {
  try {
    const text = body.toString('utf8');
    const parsed: unknown = JSON.parse(text);
    return hasDuplicateKey(text) ? undefined : parsed;
  } catch {
    return undefined;
  }
}
