const MAX_EXTERNAL_URL_LENGTH = 2048;

/**
 * The only links handed to the operating system (`shell.openExternal`): absolute `https:` URLs
 * with a host and no embedded credentials (`https://trusted@evil.example` reads as trusted).
 * Returns the normalized href, or null for anything else (file:, javascript:, custom schemes…).
 */
export function safeExternalUrl(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > MAX_EXTERNAL_URL_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') return null;
  return url.href;
}
