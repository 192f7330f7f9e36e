import { CitadelError } from '../../shared/errors';

/** A registry setting: npm's `registry`, a scope's `@scope:registry`, as npm's ini reader normalizes the key. */
const REGISTRY_KEY = /registry$/i;
/** More than any real project's settings; a larger file is refused rather than read. */
export const MAX_NPMRC_BYTES = 64 * 1024;

/**
 * Refuses a repository's committed `.npmrc` that names a registry the operator's own configuration
 * does not (SETUP_REGISTRY_UNSUPPORTED, naming the file and line): a cloned repository must not
 * choose where setup fetches from, nor turn a `registries` step into a route out. Inside the
 * sandbox npm still reads the file, but the registry and cache Citadel sets in the environment
 * take precedence over it, so a registry line is all that could matter.
 */
export function assertProjectRegistries(text: string, operatorRegistry: string, file = '.npmrc'): void {
  const allowed = originOf(operatorRegistry);
  for (const [index, raw] of text.replace(/^\uFEFF/, '').split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at <= 0) continue;
    // The ini reader npm uses unquotes a key and reads `key[]` as a list of the same setting.
    const key = unquote(line.slice(0, at).trim()).replace(/\[\]$/, '');
    if (!REGISTRY_KEY.test(key)) continue;
    const value = unquote(line.slice(at + 1).trim());
    const origin = originOf(value);
    if (origin === null || origin !== allowed) {
      throw new CitadelError(
        'SETUP_REGISTRY_UNSUPPORTED',
        `${file}:${index + 1} sets ${key} to ${origin ?? value}, a registry the operator's npm configuration does not name (${allowed ?? operatorRegistry}); setup uses only the operator's registry: remove the line or configure that registry in your own ~/.npmrc`,
        { details: { file, line: index + 1, key, registry: origin ?? value.slice(0, 200), operator_registry: allowed ?? operatorRegistry } },
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
