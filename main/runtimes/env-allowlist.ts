import type { RuntimeAdapter } from './adapter-contract/runtime-adapter';

/** Names every runtime child may receive (decisions D6); a RegExp stands for a glob such as `LC_*`. */
export const COMMON_ENV_ALLOWLIST: readonly (string | RegExp)[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  /^LC_/,
  'TZ',
  'TMPDIR',
  'TERM',
];

export interface ChildEnvironment {
  readonly env: Record<string, string>;
  /** Allowlisted names that were present, sorted: receipts record these, never the values. */
  readonly presentNames: string[];
}

/**
 * The environment a runtime child gets: the common allowlist plus the adapter's own names, nothing
 * else (decisions D6). Windows environment names are case-insensitive, so there they match ignoring case.
 */
export function childEnvironment(
  parentEnv: Readonly<Record<string, string | undefined>>,
  adapter: Pick<RuntimeAdapter, 'envAllowlist'>,
  options: { readonly platform?: NodeJS.Platform } = {},
): ChildEnvironment {
  const ignoreCase = (options.platform ?? process.platform) === 'win32';
  const fold = (name: string): string => (ignoreCase ? name.toUpperCase() : name);
  const entries = [...COMMON_ENV_ALLOWLIST, ...adapter.envAllowlist];
  const exact = new Set(entries.filter((entry) => typeof entry === 'string').map(fold));
  const patterns = entries.filter((entry) => entry instanceof RegExp).map((entry) => new RegExp(entry.source, ignoreCase ? 'i' : ''));
  const allowed = (name: string): boolean => exact.has(fold(name)) || patterns.some((pattern) => pattern.test(name));

  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parentEnv)) {
    if (value !== undefined && allowed(name)) env[name] = value;
  }
  return { env, presentNames: Object.keys(env).sort() };
}

/**
 * The first port of the branch's block (issue 13). Set by Citadel from the branch's lease, never
 * taken from the parent environment (no allowlist entry names it), so an operator's own CITADEL_PORT never leaks in.
 */
export const PORT_ENV_NAME = 'CITADEL_PORT';

/** `child` with CITADEL_PORT set to `first`, its name recorded like every other. */
export function withCitadelPort(child: ChildEnvironment, first: number): ChildEnvironment {
  const env = { ...child.env, [PORT_ENV_NAME]: String(first) };
  return { env, presentNames: Object.keys(env).sort() };
}
