import { CitadelError } from '../../shared/errors';

/** A registry setting: npm's `registry` or a scope's `@scope:registry`. */
const REGISTRY_KEY = /^(?:@[^:=\s]+:)?registry$/;

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
    if (line === '' || line.startsWith(';') || line.startsWith('#') || line.startsWith('[')) continue;
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const key = line.slice(0, at).trim();
    if (!REGISTRY_KEY.test(key)) continue;
    const value = line.slice(at + 1).trim().replace(/^(["'])(.*)\1$/, '$2');
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

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
