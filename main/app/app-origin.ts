/**
 * Where the renderer lives: a privileged custom scheme (never file://), one fixed host. Node's URL
 * parser gives non-special schemes an opaque `null` origin, so the origin is compared by parts.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'citadel';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** The URL parsed, when it belongs to the app's own origin (no port, no credentials); else null. */
export function parseAppUrl(raw: string): URL | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  const own = url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST && url.username === '' && url.password === '';
  return own ? url : null;
}

export const isAppUrl = (raw: string): boolean => parseAppUrl(raw) !== null;
