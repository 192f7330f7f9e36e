import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'aborted' | 'not_utf8' };

/** The request body as UTF-8 text, refused as soon as it passes `maxBytes` (nothing more is buffered). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ ok: false, reason: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: BodyResult) => {
      req.removeAllListeners('data');
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        // Stop reading; the refusal is sent, and the connection closed after it.
        req.pause();
        done({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        done({ ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)) });
      } catch {
        done({ ok: false, reason: 'not_utf8' });
      }
    });
    req.on('aborted', () => done({ ok: false, reason: 'aborted' }));
    req.on('error', () => done({ ok: false, reason: 'aborted' }));
  });
}
