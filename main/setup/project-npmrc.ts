import { CitadelError } from '../../shared/errors';

/** A registry setting: npm's `registry`, a scope's `@scope:registry`, as npm's ini reader normalizes the key. */
const REGISTRY_KEY = /registry$/i;
/** Settings that name another settings file, which no check here would read. */
const CONFIG_FILE_KEY = /^(?:userconfig|globalconfig)$/i;
/** More than any real project's settings; a larger file is refused rather than read. */
export const MAX_NPMRC_BYTES = 64 * 1024;

/** The registries the operator's own npm configuration names: the default and each scope's. */
export interface OperatorRegistries {
  readonly registry: string;
  readonly scopes: Readonly<Record<string, string>>;
}

/**
 * Refuses a repository's committed `.npmrc` that names a registry the operator's own configuration
 * does not name for that key, or another settings file (SETUP_REGISTRY_UNSUPPORTED, naming the file
 * and line): a cloned repository must not choose where setup fetches from, nor turn a `registries`
 * step into a route out. Inside the sandbox npm still reads the file, but the registry and cache
 * Citadel sets in the environment take precedence over it.
 */
export function assertProjectRegistries(text: string, operator: OperatorRegistries, file = '.npmrc'): void {
  for (const [index, raw] of text.replace(/^\uFEFF/, '').split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at <= 0) continue;
    // The ini reader npm uses unquotes a key and reads `key[]` as a list of the same setting.
    const key = unquote(line.slice(0, at).trim()).replace(/\[\]$/, '');
    const value = unquote(line.slice(at + 1).trim());
    const refuse = (why: string, advice: string) =>
      new CitadelError('SETUP_REGISTRY_UNSUPPORTED', `${file}:${index + 1} ${why}; ${advice}`, { details: { file, line: index + 1, key, value: value.slice(0, 200) } });
    if (CONFIG_FILE_KEY.test(key)) throw refuse(`sets ${key}, another npm settings file setup would read`, 'remove the line');
    if (!REGISTRY_KEY.test(key)) continue;
    const origin = originOf(value);
    const allowed = [operator.registry, ...(Object.hasOwn(operator.scopes, key) ? [operator.scopes[key] ?? ''] : [])].map(originOf);
    if (origin === null || !allowed.includes(origin)) {
      throw refuse(
        `sets ${key} to ${origin ?? value}, a registry the operator's npm configuration does not name for it`,
        `setup uses only the operator's registries: remove the line, or set ${key}=${origin ?? value} in your own ~/.npmrc if you trust it`,
      );
    }
  }
}

const unquote = (text: string): string => text.replace(/^(["'])(.*)\1$/, '$2').trim();

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
