import path from 'node:path';
import { isTable, parseIni, parseToml, readSettingsFile, tomlString, tomlStrings, tomlTable, tomlTables, type TomlTable } from './config-text';
import { pipOptions, requirementLineOptions, requirementLines, type PipOption } from './pip-options';
import { httpsHost, indexKey, originOf, unique, unsupported } from './registry-url';
import { configDirs, configHome, envValue, homeOf, type CommittedFile, type Env, type Registries } from './toolchain';

/** PyPI's index and the host its files are served from. */
export const PYPI_INDEX = 'https://pypi.org/simple';
const PYPI_FILES_HOST = 'files.pythonhosted.org';

/** An index URL and the setting that named it, for the refusal. */
interface Index {
  readonly url: string;
  readonly setting: string;
}

/** The operator's indexes: the one packages come from and the extra ones. */
interface PythonIndexes {
  readonly index: Index;
  readonly extra: readonly Index[];
}

/** The hosts of the indexes, with PyPI's file host when PyPI is one of them. */
function indexHosts(toolchain: string, indexes: readonly Index[]): string[] {
  const hosts = indexes.map((index) => httpsHost(index.url, { toolchain, setting: index.setting }));
  return unique(hosts.includes('pypi.org') ? [...hosts, PYPI_FILES_HOST] : hosts);
}

/**
 * pip's indexes as the operator's configuration sets them: `PIP_INDEX_URL` / `PIP_EXTRA_INDEX_URL`,
 * else `index-url` / `extra-index-url` in `[global]` then `[install]` of the global files
 * (`$XDG_CONFIG_DIRS/pip/pip.conf`, `/etc/pip.conf`), the user's (`~/.pip/pip.conf`,
 * `$XDG_CONFIG_HOME/pip/pip.conf`) and `PIP_CONFIG_FILE`, the later winning, as pip reads them.
 */
export async function pipIndexes(env: Env, systemFiles: readonly string[] = ['/etc/pip.conf']): Promise<PythonIndexes> {
  let index: Index = { url: PYPI_INDEX, setting: 'pip default' };
  let extra: Index[] = [];
  const named = envValue(env, 'PIP_CONFIG_FILE');
  const files =
    named === '/dev/null'
      ? []
      : [...configDirs(env).map((dir) => path.join(dir, 'pip', 'pip.conf')), ...systemFiles, path.join(homeOf(env), '.pip', 'pip.conf'), path.join(configHome(env), 'pip', 'pip.conf'), ...(named === null ? [] : [named])];
  for (const file of files) {
    const text = await readSettingsFile(file);
    if (text === null) continue;
    const sections = parseIni(text);
    for (const name of ['global', 'install']) {
      const section = sections.get(name);
      const indexUrl = section?.get('index-url');
      if (indexUrl !== undefined) index = { url: indexUrl.value, setting: `${file} [${name}] index-url` };
      const extraUrls = section?.get('extra-index-url');
      if (extraUrls !== undefined) extra = splitUrls(extraUrls.value).map((url) => ({ url, setting: `${file} [${name}] extra-index-url` }));
    }
  }
  const envIndex = envValue(env, 'PIP_INDEX_URL');
  if (envIndex !== null) index = { url: envIndex, setting: 'PIP_INDEX_URL' };
  const envExtra = envValue(env, 'PIP_EXTRA_INDEX_URL');
  if (envExtra !== null) extra = splitUrls(envExtra).map((url) => ({ url, setting: 'PIP_EXTRA_INDEX_URL' }));
  return { index, extra };
}

const splitUrls = (text: string): string[] => text.split(/\s+/).filter((url) => url !== '');

/** The setting names a pip step's environment carries. */
export const PIP_ENV_NAMES = ['PIP_EXTRA_INDEX_URL', 'PIP_INDEX_URL'] as const;

export async function pipRegistries(env: Env): Promise<Registries> {
  const { index, extra } = await pipIndexes(env);
  return {
    hosts: indexHosts('pip', [index, ...extra]),
    env: { PIP_INDEX_URL: index.url, ...(extra.length === 0 ? {} : { PIP_EXTRA_INDEX_URL: extra.map((entry) => entry.url).join(' ') }) },
  };
}

/** More nested requirements files than a real project has: a step naming more is refused, not half-checked. */
const MAX_REQUIREMENT_FILES = 32;
/** `${NAME}`, which pip replaces with the step's environment in a requirements file. */
const ENV_VARIABLE = /\$\{[A-Z0-9_]+\}/;

/**
 * Refuses a pip step whose arguments, or a committed requirements file they name (and the files
 * those name with `-r`/`-c`), name an index or a page of links the operator's pip configuration
 * does not (pip takes `--index-url`, `--extra-index-url` and `--find-links` from requirements files,
 * under any unique prefix; pip-options.ts reads them as pip does). A local path or `file:` URL needs
 * no host and stays; a requirements file fetched from a URL, or named through a variable, cannot be
 * checked and is refused.
 */
export async function assertPipProject(args: readonly string[], committed: CommittedFile, operator: PythonIndexes): Promise<void> {
  const allowed = new Set([operator.index, ...operator.extra].map((index) => indexKey(index.url)));
  const queue: string[] = [];
  const refuse = (where: string, found: PipOption, why: string) =>
    unsupported(`pip: ${where} sets ${found.written}${found.written === found.option ? '' : ` (${found.option})`} ${found.value.slice(0, 200)}, ${why}`, { toolchain: 'pip', where, option: found.option });
  const check = (options: readonly PipOption[], where: string, base: string, fromFile: boolean) => {
    for (const found of options) {
      if (fromFile && ENV_VARIABLE.test(found.value)) throw refuse(where, found, 'through an environment variable pip would replace, which setup cannot check: write the value out');
      const remote = remoteUrl(found.value);
      if (found.kind === 'file') {
        if (remote !== null) throw refuse(where, found, 'a requirements file pip would fetch from the network, which setup cannot check: commit it to the repository instead');
        const file = path.posix.normalize(path.posix.join(base, found.value));
        if (!file.startsWith('../') && !path.posix.isAbsolute(file)) queue.push(file);
      } else if (remote !== null && !allowed.has(indexKey(remote))) {
        throw refuse(
          where,
          found,
          "an index the operator's pip configuration does not name; setup uses only the operator's indexes (PIP_INDEX_URL / PIP_EXTRA_INDEX_URL or pip.conf index-url / extra-index-url): remove it, or add it to your own pip.conf if you trust it",
        );
      }
    }
  };
  check(pipOptions(args), 'the setup step', '.', false);
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.shift() ?? '';
    if (seen.has(file)) continue;
    if (seen.size >= MAX_REQUIREMENT_FILES) throw unsupported(`pip: the setup step's requirements files name more than ${MAX_REQUIREMENT_FILES} files (${file.slice(0, 200)} and after), more than setup checks for indexes`, { toolchain: 'pip', where: file });
    seen.add(file);
    const text = await committed(file);
    if (text === null) continue;
    for (const [index, line] of requirementLines(text)) {
      const tokens = requirementLineOptions(line);
      if (tokens === null) throw unsupported(`pip: ${file}:${index} has options pip cannot split (an unclosed quote or a trailing backslash)`, { toolchain: 'pip', where: `${file}:${index}` });
      check(pipOptions(tokens), `${file}:${index}`, path.posix.dirname(file), true);
    }
  }
}

/**
 * The value as a URL pip would fetch from (as Python's urlsplit reads it: leading C0 controls and
 * spaces dropped, tabs and line breaks removed), or null for a local path or a `file:` URL.
 */
function remoteUrl(value: string): string | null {
  // eslint-disable-next-line no-control-regex
  const url = value.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '').replace(/[\t\r\n]/g, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  return scheme === undefined || scheme.toLowerCase() === 'file' ? null : url;
}

/**
 * uv's indexes as the operator's configuration sets them: `UV_DEFAULT_INDEX` (or `UV_INDEX_URL`)
 * and `UV_INDEX` (or `UV_EXTRA_INDEX_URL`), else `index-url`, `extra-index-url` and `[[index]]`
 * (`default = true` for the default) in `UV_CONFIG_FILE` or the system (`$XDG_CONFIG_DIRS/uv/uv.toml`,
 * `/etc/uv/uv.toml`) then the user's (`$XDG_CONFIG_HOME/uv/uv.toml`) file; none with `UV_NO_CONFIG`.
 */
export async function uvIndexes(env: Env, systemFiles: readonly string[] = ['/etc/uv/uv.toml']): Promise<PythonIndexes> {
  let index: Index = { url: PYPI_INDEX, setting: 'uv default' };
  let extra: Index[] = [];
  const named = envValue(env, 'UV_CONFIG_FILE');
  const noConfig = envValue(env, 'UV_NO_CONFIG');
  const files =
    noConfig !== null && !/^(0|false|no)$/i.test(noConfig)
      ? []
      : named !== null
        ? [named]
        : [...configDirs(env).map((dir) => path.join(dir, 'uv', 'uv.toml')), ...systemFiles, path.join(configHome(env), 'uv', 'uv.toml')];
  for (const file of files) {
    const text = await readSettingsFile(file);
    if (text === null) continue;
    const found = uvSettingIndexes(parseToml(text, file), file);
    if (found.index !== null) index = found.index;
    extra = [...extra, ...found.extra];
  }
  const envIndex = envValue(env, 'UV_DEFAULT_INDEX') ?? envValue(env, 'UV_INDEX_URL');
  if (envIndex !== null) index = { url: envIndex, setting: env.UV_DEFAULT_INDEX === undefined ? 'UV_INDEX_URL' : 'UV_DEFAULT_INDEX' };
  const envExtra = [...splitUrls(env.UV_INDEX ?? '').map((entry) => ({ url: entry.replace(/^[A-Za-z0-9_.-]+=/, ''), setting: 'UV_INDEX' })), ...splitUrls(env.UV_EXTRA_INDEX_URL ?? '').map((url) => ({ url, setting: 'UV_EXTRA_INDEX_URL' }))];
  if (envExtra.length > 0) extra = envExtra;
  return { index, extra };
}

/** The indexes one uv settings table names (a uv.toml, or pyproject's `[tool.uv]`). */
function uvSettingIndexes(table: TomlTable | null, file: string): { index: Index | null; extra: Index[] } {
  let index: Index | null = null;
  const extra: Index[] = [];
  const indexUrl = tomlString(table, 'index-url');
  if (indexUrl !== null) index = { url: indexUrl, setting: `${file} index-url` };
  for (const url of tomlStrings(table, 'extra-index-url')) extra.push({ url, setting: `${file} extra-index-url` });
  for (const url of tomlStrings(table, 'find-links')) extra.push({ url, setting: `${file} find-links` });
  for (const entry of tomlTables(table, 'index')) {
    const url = tomlString(entry, 'url');
    if (url === null) continue;
    if (entry.default === true) index = { url, setting: `${file} [[index]] url (default)` };
    else extra.push({ url, setting: `${file} [[index]] url` });
  }
  return { index, extra };
}

export const UV_ENV_NAMES = ['UV_DEFAULT_INDEX', 'UV_INDEX'] as const;

export async function uvRegistries(env: Env): Promise<Registries> {
  const { index, extra } = await uvIndexes(env);
  return {
    hosts: indexHosts('uv', [index, ...extra]),
    env: { UV_DEFAULT_INDEX: index.url, ...(extra.length === 0 ? {} : { UV_INDEX: extra.map((entry) => entry.url).join(' ') }) },
  };
}

/** A uv.lock over this is refused rather than read (a large project's is a few MiB). */
const MAX_LOCK_BYTES = 32 * 1024 * 1024;

/**
 * Refuses a uv step when the repository's `uv.toml`, `pyproject.toml` `[tool.uv]` or `uv.lock`
 * (`source = { registry = … }`, what `uv sync --frozen` fetches from) names an index the operator's
 * uv configuration does not.
 */
export async function assertUvProject(committed: CommittedFile, operator: PythonIndexes): Promise<void> {
  const allowed = new Set([operator.index, ...operator.extra].map((index) => indexKey(index.url)));
  const refuse = (where: string, url: string) =>
    unsupported(`uv: ${where} names the index ${url.slice(0, 200)}, which the operator's uv configuration does not name; setup uses only the operator's indexes (UV_DEFAULT_INDEX / UV_INDEX or ~/.config/uv/uv.toml): remove it, or add it to your own uv.toml if you trust it`, {
      toolchain: 'uv',
      where,
    });
  const settings: [string, TomlTable | null][] = [];
  const uvToml = await committed('uv.toml');
  if (uvToml !== null) settings.push(['uv.toml', parseToml(uvToml, 'uv.toml')]);
  const pyproject = await committed('pyproject.toml');
  if (pyproject !== null) settings.push(['pyproject.toml [tool.uv]', tomlTable(parseToml(pyproject, 'pyproject.toml'), 'tool', 'uv')]);
  for (const [file, table] of settings) {
    const found = uvSettingIndexes(table, file);
    for (const index of [...(found.index === null ? [] : [found.index]), ...found.extra]) {
      if (originOf(index.url) !== null && !allowed.has(indexKey(index.url))) throw refuse(index.setting, index.url);
    }
  }
  const lock = await committed('uv.lock', MAX_LOCK_BYTES);
  for (const [index, line] of (lock ?? '').split(/\r?\n/).entries()) {
    const registry = /\bsource\s*=\s*\{[^}]*\bregistry\s*=\s*"([^"]+)"/.exec(line)?.[1];
    if (registry !== undefined && originOf(registry) !== null && !allowed.has(indexKey(registry))) throw refuse(`uv.lock:${index + 1}`, registry);
  }
}

/**
 * Poetry installs from PyPI and the sources the project's `pyproject.toml` declares
 * (`[[tool.poetry.source]]`, project-level by design). A source is allowed only when the operator's
 * own Poetry configuration names the same URL as a repository (`repositories.<name>.url` in
 * `$POETRY_CONFIG_DIR/config.toml` or `$XDG_CONFIG_HOME/pypoetry/config.toml`, or
 * `POETRY_REPOSITORIES_<NAME>_URL`); the hosts are PyPI's and those sources'.
 */
export async function poetryRegistries(env: Env, committed: CommittedFile): Promise<Registries> {
  const dir = envValue(env, 'POETRY_CONFIG_DIR') ?? path.join(configHome(env), 'pypoetry');
  const file = path.join(dir, 'config.toml');
  const text = await readSettingsFile(file);
  const repositories = tomlTable(text === null ? {} : parseToml(text, file), 'repositories') ?? {};
  const operator = new Set([
    ...Object.values(repositories).map((entry) => (isTable(entry) ? tomlString(entry, 'url') : null)),
    ...Object.entries(env).filter(([name]) => /^POETRY_REPOSITORIES_.+_URL$/.test(name)).map(([, value]) => value ?? null),
  ].flatMap((url) => (url === null ? [] : [indexKey(url)])));
  const pyproject = await committed('pyproject.toml');
  const sources = tomlTables(tomlTable(pyproject === null ? {} : parseToml(pyproject, 'pyproject.toml'), 'tool', 'poetry'), 'source');
  const used: Index[] = [];
  for (const source of sources) {
    const url = tomlString(source, 'url');
    if (url === null) continue;
    if (!operator.has(indexKey(url))) {
      throw unsupported(`poetry: pyproject.toml [[tool.poetry.source]] ${tomlString(source, 'name') ?? ''} names ${url.slice(0, 200)}, which the operator's Poetry configuration does not name as a repository; setup reaches PyPI and only the sources you trust: \`poetry config repositories.<name> ${url.slice(0, 200)}\` if you do`, {
        toolchain: 'poetry',
        setting: 'pyproject.toml [[tool.poetry.source]] url',
      });
    }
    used.push({ url, setting: `pyproject.toml [[tool.poetry.source]] url (named in ${file})` });
  }
  return { hosts: indexHosts('poetry', [{ url: PYPI_INDEX, setting: 'poetry default' }, ...used]), env: {} };
}
