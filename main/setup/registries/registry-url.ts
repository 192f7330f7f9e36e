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
 * the toolchain and its setting: the filtering proxy allows host names on port 443 only.
 */
export function httpsHost(registry: string, source: SettingSource): string {
  let url: URL;
  try {
    url = new URL(registry);
  } catch {
    throw unsupported(`${source.toolchain}: ${source.setting} is not a URL: ${registry.slice(0, 200)}`, { toolchain: source.toolchain, setting: source.setting });
  }
  // A literal IP or a name without a dot is not an allowlist entry the proxy accepts.
  if (url.protocol !== 'https:' || url.port !== '' || !/^[a-z0-9.-]+\.[a-z]{2,}$/.test(url.hostname)) {
    throw unsupported(`${source.toolchain}: ${source.setting} names ${url.origin}, not an https host name on port 443, which setup's proxy requires`, {
      toolchain: source.toolchain,
      setting: source.setting,
      registry: url.origin,
    });
  }
  return url.hostname;
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
