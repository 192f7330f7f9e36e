import path from 'node:path';
import { parseAppUrl } from './app-origin';

/**
 * The file under `rootDir` an app:// request names, or null when it names none: another origin,
 * a malformed escape, a NUL byte, a folder, or a path that resolves outside the root (an encoded
 * `%2F..`, a drive or UNC path on Windows). The origin's root maps to index.html.
 */
export function resolveAppFile(rootDir: string, requestUrl: string): string | null {
  const url = parseAppUrl(requestUrl);
  if (url === null) return null;
  let relative: string;
  try {
    relative = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (relative.includes('\0')) return null;
  if (relative === '/' || relative === '') relative = '/index.html';
  // A folder is never served (file:// would answer with a listing of it).
  if (relative.endsWith('/')) return null;
  const root = path.resolve(rootDir);
  const file = path.resolve(root, `.${relative}`);
  const inside = path.relative(root, file);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) return null;
  return file;
}
