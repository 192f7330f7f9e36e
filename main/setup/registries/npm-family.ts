import path from 'node:path';
import { isTable, parseToml, readSettingsFile, tomlString, tomlTable, type TomlValue } from './config-text';
import { httpsHost, originOf, unique, unsupported } from './registry-url';
import { configHome, envValue, homeOf, type CommittedFile, type Env, type OperatorNpm, type Registries } from './toolchain';

export type NpmFamily = 'npm' | 'pnpm' | 'yarn' | 'bun';

const NPM_PUBLIC = 'registry.npmjs.org';
/** Yarn's own default registry (both versions), which yarn.lock files name even when npm's is the public one. */
const YARN_DEFAULT = 'https://registry.yarnpkg.com';
const NPM_SETTING = "npm's configured registry (npm config get registry: npm_config_registry, ~/.npmrc, the global npmrc)";

export const NPM_FAMILY_ENV_NAMES: Readonly<Record<NpmFamily, readonly string[]>> = {
  // npm's own settings are set by setup's npm cache (setup-template.ts NPM_ENV_NAMES).
  npm: [],
  pnpm: ['npm_config_registry'],
  yarn: ['YARN_NPM_REGISTRY_SERVER', 'npm_config_registry'],
  bun: ['BUN_CONFIG_REGISTRY'],
};

/** A registry and the setting that named it. */
interface Named {
  readonly url: string;
  readonly setting: string;
}

/** Yarn 2+'s registry: `YARN_NPM_REGISTRY_SERVER`, else `npmRegistryServer` in the operator's `~/.yarnrc.yml`, else Yarn's default. */
async function yarnBerryRegistry(env: Env): Promise<Named> {
  const fromEnv = envValue(env, 'YARN_NPM_REGISTRY_SERVER');
  if (fromEnv !== null) return { url: fromEnv, setting: 'YARN_NPM_REGISTRY_SERVER' };
  const file = path.join(homeOf(env), '.yarnrc.yml');
  const server = yamlRegistryServers(await readSettingsFile(file)).find((entry) => entry.topLevel);
  return server === undefined ? { url: YARN_DEFAULT, setting: "Yarn's default registry" } : { url: server.url, setting: `${file} npmRegistryServer` };
}

/** bun's registry: `BUN_CONFIG_REGISTRY`, else `[install] registry` in the operator's bunfig (`$XDG_CONFIG_HOME/.bunfig.toml`, `~/.bunfig.toml`), else npm's. */
async function bunRegistry(env: Env, npm: OperatorNpm): Promise<Named> {
  const fromEnv = envValue(env, 'BUN_CONFIG_REGISTRY');
  if (fromEnv !== null) return { url: fromEnv, setting: 'BUN_CONFIG_REGISTRY' };
  for (const file of [path.join(configHome(env), '.bunfig.toml'), path.join(homeOf(env), '.bunfig.toml')]) {
    const text = await readSettingsFile(file);
    const url = text === null ? null : bunfigUrl(tomlTable(parseToml(text, file), 'install')?.registry);
    if (url !== null) return { url, setting: `${file} [install] registry` };
  }
  return { url: npm.registry, setting: NPM_SETTING };
}

/** A bunfig registry: a URL string or `{ url = … }`. */
const bunfigUrl = (value: TomlValue | undefined): string | null =>
  typeof value === 'string' ? value : isTable(value) ? tomlString(value, 'url') : null;

/**
 * The registries an npm-family tool uses under the operator's configuration: npm and pnpm npm's
 * registry; Yarn npm's (1.x reads .npmrc) and its 2+ `npmRegistryServer`, with registry.yarnpkg.com
 * when npm's is the public one (1.x's default, and what yarn.lock files name); bun its own setting or npm's.
 */
async function familyRegistries(tool: NpmFamily, env: Env, npm: OperatorNpm): Promise<{ named: Named[]; env: Record<string, string> }> {
  const npmNamed: Named = { url: npm.registry, setting: NPM_SETTING };
  switch (tool) {
    case 'npm':
      return { named: [npmNamed], env: {} };
    case 'pnpm':
      return { named: [npmNamed], env: { npm_config_registry: npm.registry } };
    case 'yarn': {
      const berry = await yarnBerryRegistry(env);
      const publicNpm = originOf(npm.registry) === `https://${NPM_PUBLIC}`;
      return { named: [npmNamed, berry, ...(publicNpm ? [{ url: YARN_DEFAULT, setting: "Yarn's default registry" }] : [])], env: { npm_config_registry: npm.registry, YARN_NPM_REGISTRY_SERVER: berry.url } };
    }
    case 'bun': {
      const registry = await bunRegistry(env, npm);
      return { named: [registry], env: { BUN_CONFIG_REGISTRY: registry.url } };
    }
  }
}

export async function npmFamilyRegistries(tool: NpmFamily, env: Env, npm: OperatorNpm): Promise<Registries & { origins: string[] }> {
  const { named, env: stepEnv } = await familyRegistries(tool, env, npm);
  const hosts = unique(named.map((entry) => httpsHost(entry.url, { toolchain: tool, setting: entry.setting })));
  const origins = unique([...named, ...Object.values(npm.scopes).map((url) => ({ url, setting: '' }))].flatMap((entry) => originOf(entry.url) ?? []));
  return { hosts, env: stepEnv, origins };
}

/**
 * Refuses an npm-family step when the repository's own settings name a registry the operator's do
 * not: Yarn's `.yarnrc` and `.yarnrc.yml`, bun's `bunfig.toml`, pnpm's `pnpm-workspace.yaml`
 * (`.npmrc`, which all of them read, is checked by the workflow loader with project-npmrc.ts).
 */
export async function assertNpmFamilyProject(tool: NpmFamily, committed: CommittedFile, origins: readonly string[]): Promise<void> {
  if (tool === 'npm') return;
  const allowed = new Set(origins);
  const check = (file: string, line: number | null, key: string, url: string) => {
    if (allowed.has(originOf(url) ?? '')) return;
    throw unsupported(`${tool}: ${file}${line === null ? '' : `:${line}`} sets ${key} to ${url.slice(0, 200)}, a registry the operator's configuration does not name; setup uses only the operator's registries: remove it, or configure it in your own settings if you trust it`, {
      toolchain: tool,
      file,
      line,
    });
  };
  if (tool === 'yarn') {
    for (const [index, raw] of ((await committed('.yarnrc')) ?? '').split(/\r?\n/).entries()) {
      const entry = /^\s*"?((?:@[^:"\s]+:)?registry)"?\s+"?([^"\s]+)"?/.exec(raw);
      if (entry !== null) check('.yarnrc', index + 1, entry[1] ?? '', entry[2] ?? '');
    }
    for (const server of yamlRegistryServers(await committed('.yarnrc.yml'))) check('.yarnrc.yml', server.line, 'npmRegistryServer', server.url);
  }
  if (tool === 'pnpm') {
    for (const [index, raw] of ((await committed('pnpm-workspace.yaml')) ?? '').split(/\r?\n/).entries()) {
      const entry = /^\s*["']?((?:@[^:"'\s]+:)?registry)["']?\s*:\s*["']?([^"'\s#]+)/.exec(raw);
      if (entry !== null) check('pnpm-workspace.yaml', index + 1, entry[1] ?? '', entry[2] ?? '');
    }
  }
  if (tool === 'bun') {
    const text = await committed('bunfig.toml');
    const install = text === null ? null : tomlTable(parseToml(text, 'bunfig.toml'), 'install');
    const registry = bunfigUrl(install?.registry);
    if (registry !== null) check('bunfig.toml', null, '[install] registry', registry);
    for (const [scope, value] of Object.entries(tomlTable(install ?? {}, 'scopes') ?? {})) {
      const url = bunfigUrl(value);
      if (url !== null) check('bunfig.toml', null, `[install.scopes] ${scope}`, url);
    }
  }
}

/**
 * Every `npmRegistryServer:` of a `.yarnrc.yml` (top level and under `npmScopes`), read line by line:
 * the one key needed, in a file Yarn writes as plain `key: value` lines.
 */
function yamlRegistryServers(text: string | null): { url: string; line: number; topLevel: boolean }[] {
  const found: { url: string; line: number; topLevel: boolean }[] = [];
  for (const [index, raw] of (text ?? '').split(/\r?\n/).entries()) {
    const entry = /^(\s*)["']?npmRegistryServer["']?\s*:\s*["']?([^"'\s#]+)/.exec(raw);
    if (entry !== null) found.push({ url: entry[2] ?? '', line: index + 1, topLevel: (entry[1] ?? '') === '' });
  }
  return found;
}
