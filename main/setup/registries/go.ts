import path from 'node:path';
import { readSettingsFile } from './config-text';
import { httpsHost, unique, unsupported } from './registry-url';
import { configHome, envValue, type Env, type Registries } from './toolchain';

/** The Go settings that decide where modules and checksums come from, and their defaults. */
const DEFAULTS = { GOPROXY: 'https://proxy.golang.org,direct', GOSUMDB: 'sum.golang.org', GONOSUMDB: '', GOPRIVATE: '', GONOPROXY: '' } as const;
type GoSetting = keyof typeof DEFAULTS;
export const GO_ENV_NAMES = Object.keys(DEFAULTS).sort() as GoSetting[];

/**
 * Go's module settings as `go env` resolves them for the operator: the environment, else the
 * user's go env file (`GOENV`, default `$XDG_CONFIG_HOME/go/env`, `KEY=VALUE` lines written by
 * `go env -w`), else Go's defaults. `$GOROOT/go.env` is not read: it sets those same defaults.
 */
export async function goSettings(env: Env): Promise<Record<GoSetting, { value: string; setting: string }>> {
  const goenv = envValue(env, 'GOENV');
  const file = goenv === 'off' ? null : (goenv ?? path.join(configHome(env), 'go', 'env'));
  const fromFile = new Map<string, string>();
  for (const line of ((file === null ? null : await readSettingsFile(file)) ?? '').split(/\r?\n/)) {
    const pair = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line);
    if (pair !== null) fromFile.set(pair[1] ?? '', (pair[2] ?? '').trim());
  }
  const resolved = {} as Record<GoSetting, { value: string; setting: string }>;
  for (const name of GO_ENV_NAMES) {
    const fromEnv = env[name];
    const written = fromFile.get(name);
    resolved[name] =
      fromEnv !== undefined && fromEnv !== ''
        ? { value: fromEnv, setting: `${name} (environment)` }
        : written !== undefined && written !== ''
          ? { value: written, setting: `${name} in ${file ?? ''}` }
          : { value: DEFAULTS[name], setting: `${name} (Go's default)` };
  }
  return resolved;
}

/**
 * The hosts `go mod download` may reach: each proxy of GOPROXY and the checksum database of
 * GOSUMDB. `direct` (fetch from a module's own VCS host) is not allowed, since the hosts are not
 * known before; a module that would need it (GOPRIVATE, a proxy's 404 fallback) fails on the
 * proxy's refusal. GOPROXY with no proxy (`direct`, `off`) is refused.
 */
export async function goRegistries(env: Env): Promise<Registries> {
  const settings = await goSettings(env);
  const proxy = settings.GOPROXY;
  const proxies = proxy.value.split(/[,|]/).map((entry) => entry.trim()).filter((entry) => entry !== '' && entry !== 'direct' && entry !== 'off');
  if (proxies.length === 0) {
    throw unsupported(`go: ${proxy.setting} is ${proxy.value}, which names no module proxy: "network": "registries" allows proxies only (a module's own VCS host is not known before it is fetched); set GOPROXY to a proxy such as https://proxy.golang.org`, {
      toolchain: 'go',
      setting: proxy.setting,
    });
  }
  const hosts = proxies.map((entry) => httpsHost(entry, { toolchain: 'go', setting: proxy.setting }));
  const sumdb = settings.GOSUMDB;
  if (sumdb.value !== 'off') hosts.push(sumdbHost(sumdb.value, sumdb.setting));
  return { hosts: unique(hosts), env: Object.fromEntries(GO_ENV_NAMES.map((name) => [name, settings[name].value])) };
}

/** GOSUMDB is `name[+key] [url]`: the URL when given, else https://name. */
function sumdbHost(value: string, setting: string): string {
  const [name = '', url] = value.trim().split(/\s+/);
  return httpsHost(url ?? `https://${name.replace(/\+.*$/, '')}`, { toolchain: 'go', setting });
}
