import { lstat, readFile } from 'node:fs/promises';
import { unsupported } from './registry-url';

/**
 * Minimal readers for the few registry keys setup needs from TOML (bunfig, uv, Cargo, pyproject),
 * INI (pip.conf) and KEY=VALUE (go env) files. Hand-written because no TOML or INI library is a
 * dependency of the app (`ini` and `js-yaml` are only in node_modules through dev tools): bounded,
 * and a file they cannot read is refused, never guessed at.
 */

/** Larger than any real settings file; a larger one is refused rather than read. */
export const MAX_CONFIG_BYTES = 256 * 1024;

export type TomlValue = string | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

/** An operator's settings file, or null when it does not exist. */
export async function readSettingsFile(file: string): Promise<string | null> {
  const stat = await lstat(file).catch(() => null);
  if (stat === null) return null;
  if (stat.size > MAX_CONFIG_BYTES) throw unsupported(`${file} is over ${MAX_CONFIG_BYTES} bytes; setup reads registries from it`, { file });
  return readFile(file, 'utf8').catch(() => null);
}

class TomlSyntax extends Error {}

/** A TOML document as tables, arrays and strings (numbers, booleans and dates kept as their text). */
export function parseToml(text: string, file: string): TomlTable {
  const root: TomlTable = {};
  let table = root;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let index = 0;
  try {
    while (index < lines.length) {
      const start = index;
      let source = lines[index++] ?? '';
      // A value may span lines (arrays, multi-line strings): gather lines until it parses.
      for (;;) {
        try {
          table = tomlLine(source.trim(), root, table);
          break;
        } catch (error) {
          if (!(error instanceof Incomplete) || index >= lines.length || index - start > 2000) throw error;
          source += `\n${lines[index++] ?? ''}`;
        }
      }
    }
  } catch (error) {
    if (error instanceof TomlSyntax || error instanceof Incomplete) throw unsupported(`${file}:${index} is not TOML setup can read (${error.message || 'unterminated value'})`, { file, line: index });
    throw error;
  }
  return root;
}

class Incomplete extends Error {}

function tomlLine(line: string, root: TomlTable, table: TomlTable): TomlTable {
  if (line === '' || line.startsWith('#')) return table;
  if (line.startsWith('[')) {
    const array = line.startsWith('[[');
    const cursor = { text: line, at: array ? 2 : 1 };
    const keys = parseKey(cursor);
    expect(cursor, array ? ']]' : ']');
    endOfLine(cursor);
    const parent = descend(root, keys.slice(0, -1));
    const last = keys[keys.length - 1] ?? '';
    if (!array) return descend(parent, [last]);
    const list = (parent[last] ??= []);
    if (!Array.isArray(list)) throw new TomlSyntax(`${last} is not an array of tables`);
    const entry: TomlTable = {};
    list.push(entry);
    return entry;
  }
  const cursor = { text: line, at: 0 };
  const keys = parseKey(cursor);
  expect(cursor, '=');
  const value = parseValue(cursor);
  endOfLine(cursor);
  descend(table, keys.slice(0, -1))[keys[keys.length - 1] ?? ''] = value;
  return table;
}

function descend(table: TomlTable, keys: readonly string[]): TomlTable {
  let at = table;
  for (const key of keys) {
    let next = at[key] ?? (at[key] = {});
    if (Array.isArray(next)) next = next[next.length - 1] ?? {};
    if (typeof next === 'string') throw new TomlSyntax(`${key} is not a table`);
    at = next as TomlTable;
  }
  return at;
}

interface Cursor {
  readonly text: string;
  at: number;
}

function skipSpace(cursor: Cursor, newlines = false): void {
  for (;;) {
    const char = cursor.text[cursor.at];
    if (char === ' ' || char === '\t' || (newlines && (char === '\n' || char === '\r'))) cursor.at++;
    else if (newlines && char === '#') while (cursor.at < cursor.text.length && cursor.text[cursor.at] !== '\n') cursor.at++;
    else return;
  }
}

function expect(cursor: Cursor, token: string): void {
  skipSpace(cursor);
  if (!cursor.text.startsWith(token, cursor.at)) throw new TomlSyntax(`expected ${token}`);
  cursor.at += token.length;
}

function endOfLine(cursor: Cursor): void {
  skipSpace(cursor);
  if (cursor.at < cursor.text.length && cursor.text[cursor.at] !== '#') throw new TomlSyntax('unexpected text after a value');
}

function parseKey(cursor: Cursor): string[] {
  const keys: string[] = [];
  for (;;) {
    skipSpace(cursor);
    const char = cursor.text[cursor.at];
    if (char === '"' || char === "'") keys.push(parseString(cursor));
    else {
      const bare = /^[A-Za-z0-9_-]+/.exec(cursor.text.slice(cursor.at));
      if (bare === null) throw new TomlSyntax('expected a key');
      keys.push(bare[0]);
      cursor.at += bare[0].length;
    }
    skipSpace(cursor);
    if (cursor.text[cursor.at] !== '.') return keys;
    cursor.at++;
  }
}

function parseValue(cursor: Cursor): TomlValue {
  skipSpace(cursor);
  const char = cursor.text[cursor.at];
  if (char === undefined) throw new Incomplete();
  if (char === '"' || char === "'") return parseString(cursor);
  if (char === '[') {
    cursor.at++;
    const items: TomlValue[] = [];
    for (;;) {
      skipSpace(cursor, true);
      if (cursor.at >= cursor.text.length) throw new Incomplete();
      if (cursor.text[cursor.at] === ']') {
        cursor.at++;
        return items;
      }
      items.push(parseValue(cursor));
      skipSpace(cursor, true);
      if (cursor.text[cursor.at] === ',') cursor.at++;
      else if (cursor.at >= cursor.text.length) throw new Incomplete();
      else if (cursor.text[cursor.at] !== ']') throw new TomlSyntax('expected , or ] in an array');
    }
  }
  if (char === '{') {
    cursor.at++;
    const table: TomlTable = {};
    skipSpace(cursor);
    if (cursor.text[cursor.at] === '}') {
      cursor.at++;
      return table;
    }
    for (;;) {
      const keys = parseKey(cursor);
      expect(cursor, '=');
      descend(table, keys.slice(0, -1))[keys[keys.length - 1] ?? ''] = parseValue(cursor);
      skipSpace(cursor);
      const next = cursor.text[cursor.at++];
      if (next === '}') return table;
      if (next !== ',') throw new TomlSyntax('expected , or } in an inline table');
    }
  }
  const bare = /^[A-Za-z0-9_+\-.:]+(?: [0-9:.+\-Z]+)?/.exec(cursor.text.slice(cursor.at));
  if (bare === null) throw new TomlSyntax('expected a value');
  cursor.at += bare[0].length;
  return bare[0];
}

const ESCAPES: Readonly<Record<string, string>> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

function parseString(cursor: Cursor): string {
  const quote = cursor.text[cursor.at] ?? '"';
  const triple = cursor.text.startsWith(quote.repeat(3), cursor.at);
  const close = triple ? quote.repeat(3) : quote;
  cursor.at += close.length;
  if (triple && cursor.text[cursor.at] === '\n') cursor.at++;
  let out = '';
  for (;;) {
    if (cursor.at >= cursor.text.length) throw new Incomplete();
    if (cursor.text.startsWith(close, cursor.at)) {
      cursor.at += close.length;
      return out;
    }
    const char = cursor.text[cursor.at++] ?? '';
    if (char === '\n' && !triple) throw new TomlSyntax('newline in a string');
    if (char !== '\\' || quote === "'") {
      out += char;
      continue;
    }
    const escaped = cursor.text[cursor.at++] ?? '';
    if (escaped === 'u' || escaped === 'U') {
      const digits = cursor.text.slice(cursor.at, cursor.at + (escaped === 'u' ? 4 : 8));
      if (!/^[0-9a-fA-F]+$/.test(digits)) throw new TomlSyntax('bad unicode escape');
      out += String.fromCodePoint(parseInt(digits, 16));
      cursor.at += digits.length;
    } else if (triple && /\s/.test(escaped)) {
      while (/\s/.test(cursor.text[cursor.at] ?? '')) cursor.at++;
    } else if (escaped in ESCAPES) {
      out += ESCAPES[escaped];
    } else throw new TomlSyntax('bad escape');
  }
}

/** The table at `keys`, or null; a value that is not a table counts as absent. */
export function tomlTable(root: TomlTable | null, ...keys: string[]): TomlTable | null {
  let at: TomlValue | undefined = root ?? undefined;
  for (const key of keys) {
    if (at === undefined || typeof at === 'string' || Array.isArray(at)) return null;
    at = at[key];
  }
  return at !== undefined && typeof at !== 'string' && !Array.isArray(at) ? at : null;
}

export const tomlString = (table: TomlTable | null, key: string): string | null => {
  const value = table?.[key];
  return typeof value === 'string' ? value : null;
};

export const tomlStrings = (table: TomlTable | null, key: string): string[] => {
  const value = table?.[key];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
};

export const tomlTables = (table: TomlTable | null, key: string): TomlTable[] => {
  const value = table?.[key];
  return Array.isArray(value) ? value.filter((item): item is TomlTable => typeof item === 'object' && !Array.isArray(item)) : [];
};

/** One INI value with the line it starts on. */
export interface IniValue {
  readonly value: string;
  readonly line: number;
}

/**
 * An INI file as Python's configparser reads pip's: `[section]`, `key = value` or `key: value`,
 * indented lines continuing the value before; keys as pip normalizes them (lower case, `_` as `-`).
 */
export function parseIni(text: string): Map<string, Map<string, IniValue>> {
  const sections = new Map<string, Map<string, IniValue>>();
  let section: Map<string, IniValue> | null = null;
  let last: { key: string; section: Map<string, IniValue> } | null = null;
  for (const [index, raw] of text.replace(/^\uFEFF/, '').split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (/^\s/.test(raw) && last !== null) {
      const before = last.section.get(last.key);
      last.section.set(last.key, { value: `${before?.value ?? ''}\n${line}`, line: before?.line ?? index + 1 });
      continue;
    }
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header !== null) {
      const name = (header[1] ?? '').trim();
      section = sections.get(name) ?? new Map<string, IniValue>();
      sections.set(name, section);
      last = null;
      continue;
    }
    const pair = /^([^=:]+)[=:](.*)$/.exec(line);
    if (pair === null || section === null) continue;
    const key = (pair[1] ?? '').trim().toLowerCase().replace(/_/g, '-').replace(/^--/, '');
    section.set(key, { value: (pair[2] ?? '').trim(), line: index + 1 });
    last = { key, section };
  }
  return sections;
}
