import type { ServerResponse } from 'node:http';
import { CitadelError } from '../../shared/errors';

/** A JSON answer that no cache keeps: every API reply and refusal. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/**
 * An HTTP-level refusal, with the same typed envelope a call's failure has, so the page can tell
 * a refused request (no token, foreign origin, …) from a failed call.
 */
export function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  sendJson(res, status, { ok: false, error: new CitadelError('WEB_REQUEST_REFUSED', message, { details: { status } }).toData() });
}
