import { CitadelError } from '../../../shared/errors';

/** Who named a registry, for the refusal: the toolchain and where its setting came from. */
export interface SettingSource {
  readonly toolchain: string;
  /** The file and key, or the environment variable, e.g. `~/.config/pip/pip.conf [global] index-url`. */
  readonly setting: string;
}

export const unsupported = (message: string, details: Record<string, string | number | null> = {}): CitadelError => new CitadelError('SETUP_REGISTRY_UNSUPPORTED', message, { details });

/**
 * The host name of an https registry URL on the default port, or SETUP_REGISTRY_UNSUPPORTED naming
 * the toolchain and its setting: the filtering proxy allows host names on port 443 only. A URL that
 * carries credentials (a user, a password, a token as the user, a query string) is refused without
 * printing it: the step is given the URL, and the repository's code runs in that step.
 */
export function httpsHost(registry: string, source: SettingSource): string {
  const named = { toolchain: source.toolchain, setting: source.setting };
  let url: URL;
  try {
    url = new URL(registry);
  } catch {
    throw unsupported(`${source.toolchain}: ${source.setting} is not a URL (${withoutCredentials(registry).slice(0, 200)})`, named);
  }
  if (carriesCredentials(url)) {
    throw unsupported(`${source.toolchain}: ${source.setting} names ${url.origin} with credentials (a user, a password or a query) in its URL; credentials are not passed into setup, where the repository's code runs: name a registry that needs none from this machine, or install outside Citadel`, named);
  }
  if (url.protocol === 'file:') {
    throw unsupported(`${source.toolchain}: ${source.setting} names a local file:// index, not a registry host: a "registries" step reaches hosts only and sees no folder of yours, and leaving the index out could install a same-named package from a public one instead; remove it from ${source.setting}, or install from wheels in the repository with "network": "none"`, named);
  }
  // A literal IP or a name without a dot is not an allowlist entry the proxy accepts.
  if (url.protocol !== 'https:' || url.port !== '' || !/^[a-z0-9.-]+\.[a-z]{2,}$/.test(url.hostname)) {
    const origin = url.origin === 'null' ? `a ${url.protocol} URL` : url.origin;
    throw unsupported(`${source.toolchain}: ${source.setting} names ${origin}, not an https host name on port 443, which setup's proxy requires`, { ...named, registry: origin });
  }
  return url.hostname;
}

/** Whether a registry URL has a user, a password (or a token in either) or a query, which may hold one. */
export function carriesCredentials(url: URL): boolean {
  return url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '';
}

/** A URL as it may be printed: all before its last `@` (a user, a password, a token) and any query or fragment left out. */
export function withoutCredentials(text: string): string {
  const at = text.lastIndexOf('@');
  return `${at === -1 ? text : `…@${text.slice(at + 1)}`}`.replace(/[?#].*$/s, '');
}

/** `scheme://host[:port]` of a URL, or null when it is not one (a path, a variable). */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'file:' || parsed.host === '' ? null : parsed.origin;
  } catch {
    return null;
  }
}

/** The same index however its path is spelled: origin and path, without a trailing slash. */
export function indexKey(url: string): string | null {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return null;
  }
}

export const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];
