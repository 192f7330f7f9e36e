import type { RefreshFailure } from './credential-errors';

const TIMEOUT_MS = 30_000;

export type TokenAnswer = { ok: true; body: Record<string, unknown> } | { ok: false; reason: RefreshFailure; status: number | null };

/**
 * One OAuth refresh-token grant as both vendors' CLIs send it: a JSON body, a JSON answer. The answer
 * is never logged (it holds tokens); a failure says only its class and HTTP status.
 */
export async function postTokenRequest(url: string, body: Record<string, string>): Promise<TokenAnswer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    return { ok: false, reason: 'unreachable', status: null };
  }
  const text = await response.text().catch(() => null);
  if (!response.ok) return { ok: false, reason: response.status >= 500 ? 'unreachable' : 'rejected', status: response.status };
  try {
    const parsed: unknown = text === null ? null : JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return { ok: true, body: parsed as Record<string, unknown> };
  } catch {
    // falls through: an answer that is not a JSON object is malformed
  }
  return { ok: false, reason: 'malformed', status: response.status };
}
