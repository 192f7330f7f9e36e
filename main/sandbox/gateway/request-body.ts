import type { IncomingMessage } from 'node:http';

/** A request body the gateway reads whole before forwarding (it checks it, and may send it twice). */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export type BodyRead = { readonly state: 'complete'; readonly body: Buffer } | { readonly state: 'too_large' } | { readonly state: 'broken' };

/**
 * What all of one gateway's requests hold at once: each may be up to the cap while its answer is
 * awaited, and 64 connections of them would be gigabytes in the supervisor, whose death loses the run's record.
 */
export interface BodyPool {
  held: number;
  readonly max: number;
}

/**
 * Reads a request body up to `maxBytes`, and up to what `pool` has left: a declared or actual length
 * beyond it stops the reading at once (nothing more is buffered); a client gone before the end is
 * `broken`. A complete body stays counted in the pool until the caller gives it back.
 */
export function readRequestBody(request: IncomingMessage, maxBytes: number, pool: BodyPool): Promise<BodyRead> {
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > maxBytes || pool.held + declared > pool.max) return Promise.resolve({ state: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const settle = (read: BodyRead): void => {
      if (settled) return;
      settled = true;
      if (read.state !== 'complete') pool.held -= bytes;
      resolve(read);
    };
    const stop = (read: BodyRead): void => {
      request.removeListener('data', onData);
      request.pause();
      settle(read);
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      pool.held += chunk.length;
      if (bytes > maxBytes || pool.held > pool.max) return stop({ state: 'too_large' });
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => settle({ state: 'complete', body: Buffer.concat(chunks, bytes) }));
    request.once('close', () => settle({ state: 'broken' }));
    request.once('error', () => settle({ state: 'broken' }));
  });
}
