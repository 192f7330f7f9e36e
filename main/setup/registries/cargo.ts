import path from 'node:path';
import { isTable, parseToml, readSettingsFile, tomlString, tomlTable, type TomlTable } from './config-text';
import { httpsHost, indexKey, originOf, unique, unsupported } from './registry-url';
import { envValue, homeOf, type CommittedFile, type Env, type Registries } from './toolchain';

const CRATES_IO_SPARSE = ['index.crates.io', 'static.crates.io'];
/** crates.io's git index, when its protocol is set to git; crates still download from static.crates.io. */
const CRATES_IO_GIT = 'https://github.com/rust-lang/crates.io-index';
/** Source replacement may chain; more links than this is a loop. */
const MAX_REPLACEMENTS = 8;

/** A registry URL cargo would fetch from, and the setting that named it. */
interface CargoUrl {
  readonly url: string;
  readonly setting: string;
}

/** `$CARGO_HOME/config.toml` (or its older name `config`), `~/.cargo` by default. */
async function operatorConfig(env: Env): Promise<{ file: string; table: TomlTable }> {
  const home = envValue(env, 'CARGO_HOME') ?? path.join(homeOf(env), '.cargo');
  for (const name of ['config.toml', 'config']) {
    const file = path.join(home, name);
    const text = await readSettingsFile(file);
    if (text !== null) return { file, table: parseToml(text, file) };
  }
  return { file: path.join(home, 'config.toml'), table: {} };
}

/** The registry URL of a source or registry entry (`sparse+` dropped), or null for a local one. */
const registryUrl = (entry: TomlTable | null): string | null => {
  const url = tomlString(entry, 'registry') ?? tomlString(entry, 'index');
  return url === null ? null : url.replace(/^sparse\+/, '');
};

/**
 * The URLs cargo fetches crates from under the operator's configuration: crates.io (sparse:
 * index.crates.io and static.crates.io; git when `registries.crates-io.protocol` or
 * `CARGO_REGISTRIES_CRATES_IO_PROTOCOL` says so), or what `[source.crates-io] replace-with` names,
 * followed to its `registry` (a `directory` or `local-registry` needs no host), plus each
 * `[registries.<name>] index` and `CARGO_REGISTRIES_<NAME>_INDEX`.
 */
export async function cargoUrls(env: Env): Promise<{ hosts: string[]; urls: CargoUrl[] }> {
  const { file, table } = await operatorConfig(env);
  const sources = tomlTable(table, 'source');
  const registries = tomlTable(table, 'registries');
  const hosts: string[] = [];
  const urls: CargoUrl[] = [];
  let name = 'crates-io';
  let setting = 'crates.io';
  for (let link = 0; ; link++) {
    const replacement = tomlString(tomlTable(sources, name), 'replace-with');
    if (replacement === null) break;
    if (link >= MAX_REPLACEMENTS) throw unsupported(`cargo: ${file} [source.${name}] replace-with loops`, { toolchain: 'cargo', setting: `${file} [source] replace-with` });
    setting = `${file} [source.${name}] replace-with = "${replacement}"`;
    name = replacement;
  }
  if (name === 'crates-io') {
    const protocol = envValue(env, 'CARGO_REGISTRIES_CRATES_IO_PROTOCOL') ?? tomlString(tomlTable(registries, 'crates-io'), 'protocol');
    if (protocol === 'git') {
      urls.push({ url: CRATES_IO_GIT, setting: 'crates.io (git protocol)' });
      hosts.push(CRATES_IO_SPARSE[1] ?? '');
    } else hosts.push(...CRATES_IO_SPARSE);
  } else {
    const target = tomlTable(sources, name) ?? tomlTable(registries, name);
    const url = registryUrl(target);
    if (target === null) throw unsupported(`cargo: ${setting} names no [source.${name}] or [registries.${name}] in ${file}`, { toolchain: 'cargo', setting });
    if (url !== null) urls.push({ url, setting: `${file} [source.${name}]` });
  }
  for (const [registry, entry] of Object.entries(registries ?? {})) {
    const url = isTable(entry) ? registryUrl(entry) : null;
    if (url !== null) urls.push({ url, setting: `${file} [registries.${registry}] index` });
  }
  for (const [variable, value] of Object.entries(env)) {
    if (/^CARGO_REGISTRIES_.+_INDEX$/.test(variable) && value !== undefined && value !== '') urls.push({ url: value.replace(/^sparse\+/, ''), setting: variable });
  }
  return { hosts, urls };
}

/**
 * The hosts a cargo step may reach. A mirror's crate downloads (its `config.json` `dl`) are allowed
 * only when on the index's host: the download host is not known without fetching the index.
 */
export async function cargoRegistries(env: Env): Promise<Registries & { urls: readonly CargoUrl[] }> {
  const { hosts, urls } = await cargoUrls(env);
  const all = unique([...hosts, ...urls.map((entry) => httpsHost(entry.url, { toolchain: 'cargo', setting: entry.setting }))]);
  if (all.length === 0) {
    throw unsupported('cargo: the operator\'s cargo configuration replaces crates.io with a local directory, so a "registries" step has no host to reach; use "network": "none"', { toolchain: 'cargo' });
  }
  return { hosts: all, env: {}, urls };
}

/**
 * Refuses a cargo step when the repository's own `.cargo/config.toml` (or `.cargo/config`) names a
 * registry URL in `[source.*]` or `[registries.*]` that the operator's configuration does not;
 * replacing crates.io with a vendored directory (`cargo vendor`'s setting) needs no host and stays.
 */
export async function assertCargoProject(committed: CommittedFile, operator: readonly CargoUrl[]): Promise<void> {
  const allowed = new Set(operator.map((entry) => indexKey(entry.url)));
  for (const file of ['.cargo/config.toml', '.cargo/config']) {
    const text = await committed(file);
    if (text === null) continue;
    const table = parseToml(text, file);
    for (const group of ['source', 'registries']) {
      for (const [name, entry] of Object.entries(tomlTable(table, group) ?? {})) {
        const url = isTable(entry) ? (registryUrl(entry) ?? tomlString(entry, 'git')) : null;
        if (url === null || originOf(url) === null || allowed.has(indexKey(url))) continue;
        throw unsupported(`cargo: ${file} [${group}.${name}] names ${url.slice(0, 200)}, a registry the operator's cargo configuration does not name; setup uses only the operator's registries (~/.cargo/config.toml): remove it, or add it to your own config if you trust it`, {
          toolchain: 'cargo',
          setting: `${file} [${group}.${name}]`,
        });
      }
    }
  }
}
