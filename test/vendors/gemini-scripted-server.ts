import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { sendJson, startRecordingServer, type LoggedRequest, type RecordingServer } from '../support/model-servers/recording-server';

/** One scripted Gemini answer: some text, then optionally one call of a Gemini CLI tool. */
export interface GeminiTurn {
  readonly text: string;
  readonly call?: { readonly name: string; readonly args: Record<string, unknown> };
}

/** What the script knows of the run: the workspace Gemini CLI names in its session context (the branch worktree). */
export type GeminiScript = (workspace: string) => readonly GeminiTurn[];

const USAGE = { promptTokenCount: 321, candidatesTokenCount: 54, totalTokenCount: 375 };
const STREAM_PATH = /^\/v1beta\/models\/([A-Za-z0-9._-]+):streamGenerateContent$/;
/** Gemini CLI 0.61.0's session context: `- **Workspace Directories:**\n  - <dir>` (recordings/gemini/edit/requests.jsonl). */
const WORKSPACE = /\*\*Workspace Directories:\*\*\s*\n\s*- (\S+)/;

/**
 * The Gemini API as Gemini CLI streams it (`POST /v1beta/models/M:streamGenerateContent?alt=sse`),
 * answering by script: turn n once the conversation holds n function calls of the model's. The
 * served model is the requested one, as the real API names it in `modelVersion`. Anything else is a 404.
 */
export async function startGeminiServer(script: GeminiScript): Promise<RecordingServer> {
  return startRecordingServer((request, response) => {
    const [pathname, query] = request.url.split('?');
    const model = STREAM_PATH.exec(pathname ?? '')?.[1];
    if (request.method !== 'POST' || model === undefined || query !== 'alt=sse') return sendJson(response, 404, { error: { code: 404, message: `not scripted: ${request.method} ${request.url}`, status: 'NOT_FOUND' } });
    const contents = contentsOf(request);
    const workspace = contents.flatMap((c) => c.parts).map((p) => WORKSPACE.exec(typeof p.text === 'string' ? p.text : '')?.[1]).find((dir) => dir !== undefined);
    if (workspace === undefined) return sendJson(response, 400, { error: { code: 400, message: 'no workspace in the session context', status: 'INVALID_ARGUMENT' } });
    const calls = contents.filter((c) => c.role === 'model').flatMap((c) => c.parts).filter((p) => p.functionCall !== undefined).length;
    const turns = script(path.resolve(workspace));
    const turn = turns[Math.min(calls, turns.length - 1)]!;
    stream(response, model, turn);
  });
}

function stream(response: ServerResponse, model: string, turn: GeminiTurn): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (parts: unknown[], last: boolean): void => {
    const candidate = { content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) };
    response.write(`data: ${JSON.stringify({ candidates: [candidate], ...(last ? { usageMetadata: USAGE } : {}), modelVersion: model, responseId: 'scripted' })}\r\n\r\n`);
  };
  if (turn.call === undefined) {
    event([{ text: turn.text }], true);
  } else {
    event([{ text: turn.text }], false);
    event([{ functionCall: turn.call }], true);
  }
  response.end();
}

interface Content {
  readonly role: unknown;
  readonly parts: Record<string, unknown>[];
}

function contentsOf(request: LoggedRequest): Content[] {
  const body = request.body as { contents?: unknown } | null;
  if (!Array.isArray(body?.contents)) return [];
  return body.contents.map((c: { role?: unknown; parts?: unknown }) => ({ role: c.role, parts: Array.isArray(c.parts) ? (c.parts as Record<string, unknown>[]) : [] }));
}
