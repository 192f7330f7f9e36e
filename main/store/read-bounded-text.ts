import { open } from 'node:fs/promises';
import type { Violation } from '../../shared/errors';

export type BoundedTextResult =
  | { ok: true; text: string }
  | { ok: false; kind: 'unreadable'; reason: string }
  | { ok: false; kind: 'invalid'; violation: Violation };

/** Reads a UTF-8 text file, never more than `maxBytes` + 1 bytes, with fatal decoding. */
export async function readBoundedText(file: string, maxBytes: number): Promise<BoundedTextResult> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    return { ok: false, kind: 'unreadable', reason: errorReason(error) };
  }
  try {
    if (!(await handle.stat()).isFile()) return { ok: false, kind: 'unreadable', reason: 'not a regular file' };
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) {
      return { ok: false, kind: 'invalid', violation: { path: '$', rule: 'file_too_large', message: `the file is larger than ${maxBytes} bytes` } };
    }
    try {
      return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length)) };
    } catch {
      return { ok: false, kind: 'invalid', violation: { path: '$', rule: 'not_utf8', message: 'the file is not valid UTF-8 text' } };
    }
  } catch (error) {
    return { ok: false, kind: 'unreadable', reason: errorReason(error) };
  } finally {
    await handle.close();
  }
}

function errorReason(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}
