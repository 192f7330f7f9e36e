import type { IncomingMessage } from 'node:http';

/** A request body the gateway reads whole before forwarding (it checks it, and may send it twice). */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export type BodyRead = { readonly state: 'complete'; readonly body: Buffer } | { readonly state: 'too_large' } | { readonly state: 'broken' };

/**
 * Reads a request body up to `maxBytes`: a declared or actual length beyond it stops the reading at
 * once (nothing more is buffered); a client gone before the end is `broken`.
 */
export function readRequestBody(request: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > maxBytes) return Promise.resolve({ state: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const stop = (read: BodyRead): void => {
      request.removeListener('data', onData);
      request.pause();
      resolve(read);
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > maxBytes) return stop({ state: 'too_large' });
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve({ state: 'complete', body: Buffer.concat(chunks, bytes) }));
    request.once('close', () => resolve({ state: 'broken' }));
    request.once('error', () => resolve({ state: 'broken' }));
  });
}
