// A scripted model server on 127.0.0.1 for recording the real vendor CLIs: it speaks the Gemini API
// (SSE `streamGenerateContent`, `generateContent`, `countTokens`), OpenAI chat completions (SSE or
// not) and the OpenAI Responses API, answers by scenario, and logs every request it gets (method,
// url, headers, body) followed by a line saying what it answered. Anything else is answered 404 and
// logged, so calls nobody expected still show up in the recording.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

/** Distinctive token counts, so a recording shows where a CLI reports usage. */
export const USAGE = { input: 321, output: 54, total: 375 };

export const TEXT_REPLY = 'FAKE-REPLY: hello from the scripted model server.';
export const TOOL_PREAMBLE = 'I will write the file now.';
export const FINAL_AFTER_TOOL = 'Done: wrote hello.txt (fake model final message after tool).';
/** The first words a held-open (`hang`) stream sends before it goes silent. */
export const HANG_PREFIX = 'Working on it';

/**
 * @typedef {object} ScriptedServerOptions
 * @property {string} scenario `text` | `edit` | `err500` | `err401` | `err400key` (Gemini API only) | `hang`
 * @property {string} logFile JSONL log of requests and replies
 * @property {string | null} [servedModel] the model the server says it is (default: echo the requested one)
 * @property {{ name: string, args: Record<string, unknown> } | null} [toolCall] the call `edit` makes when the request offers that tool
 * @property {string | null} [toolCallMatch] only a request whose body contains this text gets the call
 * @property {(info: { n: number, url: string }) => void} [onHang] told when a `hang` stream has started and gone silent
 */

/** Starts the server on 127.0.0.1:`port`; resolves to the running `http.Server`. */
export function startScriptedServer(port, /** @type {ScriptedServerOptions} */ options) {
  let n = 0;
  const state = { toolCallMade: false };
  const openResponses = new Set();
  const log = (entry) => appendFileSync(options.logFile, `${JSON.stringify(entry)}\n`);
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const number = ++n;
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw);
        } catch {
          body = { _unparsed: raw.slice(0, 2000), bytes: raw.length };
        }
      }
      log({ n: number, t: new Date().toISOString(), method: req.method, url: req.url, headers: req.headers, body });
      const reply = (summary) => log({ n: number, reply: summary });
      openResponses.add(res);
      res.on('close', () => openResponses.delete(res));
      route({ number, req, res, body, options, reply, state });
    });
  });
  // Set as HTTPS_PROXY/HTTP_PROXY for the CLI, the server also sees where else it tries to go:
  // each CONNECT is logged and refused.
  server.on('connect', (req, socket) => {
    const number = ++n;
    log({ n: number, t: new Date().toISOString(), method: 'CONNECT', url: req.url, headers: req.headers, body: null });
    log({ n: number, reply: '403 CONNECT refused (loopback-only recording)' });
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  server.closeAll = () => {
    for (const res of openResponses) res.destroy();
    server.close();
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function route(ctx) {
  const { req, res, reply } = ctx;
  const url = new URL(req.url, 'http://127.0.0.1');
  const gemini = url.pathname.match(/^\/v1(?:beta|alpha|)\/models\/([^:/]+):(streamGenerateContent|generateContent|countTokens)$/);
  if (req.method === 'POST' && gemini) return geminiRoute(ctx, decodeURIComponent(gemini[1]), gemini[2]);
  if (req.method === 'POST' && url.pathname.endsWith('/chat/completions')) return chatRoute(ctx);
  if (req.method === 'POST' && url.pathname.endsWith('/responses')) return responsesRoute(ctx);
  if (req.method === 'GET' && /\/models$/.test(url.pathname)) {
    const id = ctx.options.servedModel ?? 'fake-coder-1';
    sendJson(res, 200, { object: 'list', data: [{ id, object: 'model', created: 1_790_000_000, owned_by: 'scripted' }] });
    return reply(`200 model list [${id}]`);
  }
  sendJson(res, 404, { error: { message: `scripted server: no route for ${req.method} ${url.pathname}`, code: 404 } });
  reply('404 no route');
}

// ---- what the scripted model "decides" -------------------------------------------------------

/**
 * `tool` (make the scripted call), `final` (text after a tool result) or `text`. The call is made
 * once per run, to the first request that offers the tool (and, with `toolCallMatch`, whose body
 * contains that text): a CLI's side agents (Qwen's memory extraction) get plain text.
 */
function nextStep(ctx, offeredToolNames, sawToolResult) {
  const { options } = ctx;
  if (options.scenario !== 'edit') return 'text';
  if (sawToolResult) return 'final';
  const eligible =
    options.toolCall &&
    !ctx.state.toolCallMade &&
    offeredToolNames.includes(options.toolCall.name) &&
    (!options.toolCallMatch || JSON.stringify(ctx.body).includes(options.toolCallMatch));
  if (!eligible) return 'text';
  ctx.state.toolCallMade = true;
  return 'tool';
}

function errorStatus(options) {
  if (options.scenario === 'err500') return 500;
  if (options.scenario === 'err401') return 401;
  if (options.scenario === 'err400key') return 400;
  return null;
}

// ---- Gemini API ---------------------------------------------------------------------------------

function geminiRoute(ctx, model, method) {
  const { res, body, options, reply, number } = ctx;
  if (method === 'countTokens') {
    sendJson(res, 200, { totalTokens: USAGE.input });
    return reply(`200 countTokens ${USAGE.input}`);
  }
  const status = errorStatus(options);
  if (status !== null) {
    // 400 is what the real Gemini API answers for a wrong API key.
    const error =
      status === 401
        ? { code: 401, message: 'Request had invalid authentication credentials (scripted 401).', status: 'UNAUTHENTICATED' }
        : status === 400
          ? { code: 400, message: 'API key not valid. Please pass a valid API key. (scripted 400)', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }] }
          : { code: 500, message: 'Internal error encountered (scripted 500).', status: 'INTERNAL' };
    sendJson(res, status, { error });
    return reply(`${status} ${error.status}`);
  }
  const served = options.servedModel ?? model;
  const contents = Array.isArray(body?.contents) ? body.contents : [];
  const last = contents.at(-1);
  const sawToolResult = Boolean(last?.parts?.some((p) => p.functionResponse));
  const offered = (body?.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
  const wantsJson = body?.generationConfig?.responseMimeType === 'application/json';
  const usageMetadata = { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.total };
  const candidate = (parts, finishReason) => ({ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 });

  if (method === 'generateContent') {
    // Utility calls (routing, next-speaker, loop checks) ask for JSON; answer with a neutral object.
    const text = wantsJson ? JSON.stringify({ reasoning: 'scripted', next_speaker: 'user', model_choice: 'flash' }) : TEXT_REPLY;
    sendJson(res, 200, { candidates: [candidate([{ text }], 'STOP')], usageMetadata, modelVersion: served, responseId: `fake-resp-${number}` });
    return reply(`200 generateContent ${wantsJson ? 'json' : 'text'} modelVersion=${served}`);
  }

  startSse(res);
  const event = (data) => res.write(`data: ${JSON.stringify({ ...data, modelVersion: served, responseId: `fake-resp-${number}` })}\r\n\r\n`);
  if (options.scenario === 'hang' && !wantsJson) {
    event({ candidates: [candidate([{ text: `${HANG_PREFIX}` }])] });
    options.onHang?.({ n: number, url: 'streamGenerateContent' });
    return reply(`200 SSE, one text chunk, then held open (hang) modelVersion=${served}`);
  }
  const step = nextStep(ctx, offered, sawToolResult);
  if (step === 'tool') {
    event({ candidates: [candidate([{ text: TOOL_PREAMBLE }])] });
    event({ candidates: [candidate([{ functionCall: { name: options.toolCall.name, args: options.toolCall.args } }], 'STOP')], usageMetadata });
    res.end();
    return reply(`200 SSE text + functionCall ${options.toolCall.name} modelVersion=${served}`);
  }
  const text = wantsJson ? JSON.stringify({ reasoning: 'scripted', next_speaker: 'user' }) : step === 'final' ? FINAL_AFTER_TOOL : TEXT_REPLY;
  const half = Math.ceil(text.length / 2);
  event({ candidates: [candidate([{ text: text.slice(0, half) }])] });
  event({ candidates: [candidate([{ text: text.slice(half) }], 'STOP')], usageMetadata });
  res.end();
  reply(`200 SSE text (${step}) modelVersion=${served}`);
}

// ---- OpenAI chat completions --------------------------------------------------------------------

function chatRoute(ctx) {
  const { res, body, options, reply, number } = ctx;
  const status = errorStatus(options);
  if (status !== null) {
    const error =
      status === 401
        ? { message: 'Incorrect API key provided (scripted 401).', type: 'invalid_request_error', param: null, code: 'invalid_api_key' }
        : { message: 'The server had an error while processing your request (scripted 500).', type: 'server_error', param: null, code: null };
    sendJson(res, status, { error });
    return reply(`${status} ${error.type}`);
  }
  const served = options.servedModel ?? body?.model ?? 'fake-coder-1';
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const sawToolResult = messages.at(-1)?.role === 'tool';
  const offered = (body?.tools ?? []).map((t) => t.function?.name ?? t.name);
  const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.total };
  const id = `chatcmpl-fake-${number}`;
  const created = Math.floor(Date.now() / 1000);
  // A request without tools is a side request (titles, summaries): plain text whatever the scenario.
  const step = offered.length === 0 ? 'text' : nextStep(ctx, offered, sawToolResult);
  const text = offered.length === 0 ? 'Fake session title' : step === 'final' ? FINAL_AFTER_TOOL : TEXT_REPLY;
  const toolCall = step === 'tool' ? { id: `call_fake_${number}`, type: 'function', function: { name: options.toolCall.name, arguments: JSON.stringify(options.toolCall.args) } } : null;

  if (body?.stream !== true) {
    const message = toolCall ? { role: 'assistant', content: TOOL_PREAMBLE, tool_calls: [toolCall] } : { role: 'assistant', content: text };
    sendJson(res, 200, { id, object: 'chat.completion', created, model: served, choices: [{ index: 0, message, finish_reason: toolCall ? 'tool_calls' : 'stop' }], usage });
    return reply(`200 JSON ${toolCall ? `tool_calls ${toolCall.function.name}` : `text (${step})`} model=${served}`);
  }
  startSse(res);
  const chunk = (choices, extra = {}) => res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: served, choices, ...extra })}\n\n`);
  if (options.scenario === 'hang' && offered.length > 0) {
    chunk([{ index: 0, delta: { role: 'assistant', content: HANG_PREFIX }, finish_reason: null }]);
    options.onHang?.({ n: number, url: 'chat/completions' });
    return reply(`200 SSE, one text chunk, then held open (hang) model=${served}`);
  }
  if (toolCall) {
    chunk([{ index: 0, delta: { role: 'assistant', content: TOOL_PREAMBLE }, finish_reason: null }]);
    chunk([{ index: 0, delta: { tool_calls: [{ index: 0, ...toolCall }] }, finish_reason: null }]);
    chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
  } else {
    const half = Math.ceil(text.length / 2);
    chunk([{ index: 0, delta: { role: 'assistant', content: text.slice(0, half) }, finish_reason: null }]);
    chunk([{ index: 0, delta: { content: text.slice(half) }, finish_reason: null }]);
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
  }
  // Usage in its own final chunk, as OpenAI sends it for stream_options.include_usage (sent either way).
  chunk([], { usage });
  res.write('data: [DONE]\n\n');
  res.end();
  reply(`200 SSE ${toolCall ? `tool_calls ${toolCall.function.name}` : `text (${step})`} model=${served} usage ${USAGE.input}/${USAGE.output}`);
}

// ---- OpenAI Responses API -----------------------------------------------------------------------

function responsesRoute(ctx) {
  const { res, body, options, reply, number } = ctx;
  const status = errorStatus(options);
  if (status !== null) {
    sendJson(res, status, { error: { message: `scripted ${status} from the model server`, type: status === 401 ? 'invalid_request_error' : 'server_error', code: status === 401 ? 'invalid_api_key' : null } });
    return reply(`${status}`);
  }
  const served = options.servedModel ?? body?.model ?? 'fake-coder-1';
  const input = Array.isArray(body?.input) ? body.input : [];
  const sawToolResult = input.at(-1)?.type === 'function_call_output';
  const offered = (body?.tools ?? []).map((t) => t.name);
  const step = offered.length === 0 ? 'text' : nextStep(ctx, offered, sawToolResult);
  const respId = `resp_fake_${number}`;
  const usage = { input_tokens: USAGE.input, output_tokens: USAGE.output, total_tokens: USAGE.total };
  startSse(res);
  let seq = 0;
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const response = (statusText, output, withUsage) => ({ id: respId, object: 'response', created_at: Math.floor(Date.now() / 1000), status: statusText, model: served, output, ...(withUsage ? { usage } : {}) });
  ev('response.created', { response: response('in_progress', [], false) });
  if (options.scenario === 'hang' && offered.length > 0) {
    options.onHang?.({ n: number, url: 'responses' });
    return reply(`200 SSE response.created, then held open (hang) model=${served}`);
  }
  const item =
    step === 'tool'
      ? { id: `fc_fake_${number}`, type: 'function_call', status: 'completed', call_id: `call_fake_${number}`, name: options.toolCall.name, arguments: JSON.stringify(options.toolCall.args) }
      : { id: `msg_fake_${number}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step === 'final' ? FINAL_AFTER_TOOL : TEXT_REPLY, annotations: [] }] };
  ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
  if (item.type === 'message') ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: item.content[0].text });
  ev('response.output_item.done', { output_index: 0, item });
  ev('response.completed', { response: response('completed', [item], true) });
  res.end();
  reply(`200 Responses SSE ${item.type} model=${served}`);
}

// ---- helpers --------------------------------------------------------------------------------------

function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function startSse(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}
