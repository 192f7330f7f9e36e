import { realpath } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { openRegularFile } from '../store/read-bounded-text';
import { refuse } from './respond';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The file under `root` (already a realpath) that a URL path names, or null. The decoded path is
 * resolved and must stay inside the root, and so must its realpath: `..`, encoded `%2e%2e` or
 * `%2f`, and symlinks pointing out all end here. `/` is index.html.
 */
export async function resolveStaticFile(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const relative = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const candidate = path.resolve(root, relative);
  if (!isInside(root, candidate)) return null;
  const real = await realpath(candidate).catch(() => null);
  return real !== null && isInside(root, real) ? real : null;
}

/**
 * Sends `file`, or 404 unless it is a regular file. That is checked on the descriptor, opened
 * non-blocking, so a FIFO or device never holds a thread of the pool every request shares.
 */
export async function sendStaticFile(res: ServerResponse, file: string, headOnly: boolean): Promise<void> {
  const opened = await openRegularFile(file, 'refuse');
  if (!opened.ok) return refuse(res, 404, 'not found');
  res.writeHead(200, { 'Content-Type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream' });
  if (headOnly) {
    await opened.handle.close();
    res.end();
    return;
  }
  // pipeline closes the file when the response ends, fails or is dropped by the client.
  pipeline(opened.handle.createReadStream(), res, () => undefined);
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
