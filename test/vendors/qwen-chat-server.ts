import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { startRecordingServer, type LoggedRequest, type RecordingServer } from '../support/model-servers/recording-server';

/** Per request, as the recordings' scripted server counts (recordings/qwen). */
export const QWEN_USAGE = { input: 321, output: 54 };

/**
 * One tool call of the scripted Qwen model on a file, relative to the working directory Qwen Code
 * names in its first user message: `read_file`, or `write_file` with the content (Qwen Code rejects
 * overwriting a file the session has not read).
 */
export type QwenFileCall = { readonly tool: 'read_file'; readonly path: string } | { readonly tool: 'write_file'; readonly path: string; readonly content: string };

/**
 * An OpenAI chat-completions server for the real Qwen Code 0.24.4: the main agent (system prompt
 * `You are Qwen Code…`) gets the calls in order, one per request, each with the absolute path Qwen
 * Code requires, built from the `I'm currently working in the directory: <cwd>` line of its first user
 * message, and only while that tool is offered; after the last, and for any other request (the
 * managed-memory extraction), a short text. Streamed as the recordings' server did: text or tool-call deltas, finish_reason, a
 * usage chunk, `[DONE]`.
 */
export function startQwenChatServer(calls: readonly QwenFileCall[], servedModel: string | null = null): Promise<RecordingServer> {
  return startRecordingServer((request, response) => {
    if (request.method !== 'POST' || !request.url.endsWith('/chat/completions')) {
      response.writeHead(404).end();
      return;
    }
    const body = (request.body ?? {}) as { model?: string; messages?: { role?: string; content?: unknown }[]; tools?: { function?: { name?: string } }[] };
    const messages = body.messages ?? [];
    const system = JSON.stringify(messages.find((m) => m.role === 'system')?.content ?? '');
    const cwd = /I'm currently working in the directory: ([^\\]+)\\n/.exec(JSON.stringify(messages))?.[1] ?? null;
    const call = system.startsWith('"You are Qwen Code') && cwd !== null ? calls[messages.filter((m) => m.role === 'tool').length] : undefined;
    const offered = call !== undefined && (body.tools ?? []).some((t) => t.function?.name === call.tool);
    const filePath = path.join(cwd ?? '', call?.path ?? '');
    const args = call?.tool === 'write_file' ? { file_path: filePath, content: call.content } : { file_path: filePath };
    stream(response, servedModel ?? body.model ?? 'unknown-model', call === undefined || !offered ? null : { name: call.tool, args });
  });
}

function stream(response: ServerResponse, model: string, call: { name: string; args: Record<string, unknown> } | null): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `chatcmpl-qwen-${Date.now()}`;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void =>
    void response.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices, ...extra })}\n\n`);
  if (call !== null) {
    chunk([{ index: 0, delta: { role: 'assistant', content: 'Working on the fix.' }, finish_reason: null }]);
    chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: `call_${id}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] }, finish_reason: null }]);
    chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
  } else {
    chunk([{ index: 0, delta: { role: 'assistant', content: 'Fixed sum().' }, finish_reason: null }]);
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
  }
  chunk([], { usage: { prompt_tokens: QWEN_USAGE.input, completion_tokens: QWEN_USAGE.output, total_tokens: QWEN_USAGE.input + QWEN_USAGE.output } });
  response.end('data: [DONE]\n\n');
}

/** The requests of the main agent (not the memory extraction), for assertions. */
export function mainAgentRequests(requests: readonly LoggedRequest[]): LoggedRequest[] {
  return requests.filter((r) => JSON.stringify((r.body as { messages?: unknown[] } | null)?.messages?.[0] ?? '').includes('You are Qwen Code'));
}
