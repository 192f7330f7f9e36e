import { lstat, readFile } from 'node:fs/promises';
import { parse as parseTomlText, TomlError } from 'smol-toml';
import { unsupported } from './registry-url';

/**
 * Readers for the few registry keys setup needs from TOML (bunfig, uv, Cargo, pyproject) and INI
 * (pip.conf) files: TOML through smol-toml (a complete TOML 1.0 parser, no dependencies); pip's INI
 * by hand, as Python's configparser reads it (continuation lines, `:` separators), which npm's `ini`
 * does not. Bounded, and a file they cannot read is refused, never guessed at.
 */

/** Larger than any real settings file; a larger one is refused rather than read. */
export const MAX_CONFIG_BYTES = 256 * 1024;

export type TomlValue = string | number | bigint | boolean | Date | TomlValue[] | TomlTable;
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

/** A TOML document, or SETUP_REGISTRY_UNSUPPORTED naming the file and line it cannot read. */
export function parseToml(text: string, file: string): TomlTable {
  try {
    return parseTomlText(text) as TomlTable;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    throw unsupported(`${file}:${error.line} is not TOML setup can read (${error.message.split('\n', 1)[0] ?? ''})`, { file, line: error.line });
  }
}

/** The table at `keys`, or null; a value that is not a table counts as absent. */
export function tomlTable(root: TomlTable | null, ...keys: string[]): TomlTable | null {
  let at: TomlValue | undefined = root ?? undefined;
  for (const key of keys) {
    if (!isTable(at)) return null;
    at = at[key];
  }
  return isTable(at) ? at : null;
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
  return Array.isArray(value) ? value.filter(isTable) : [];
};

export function isTable(value: TomlValue | undefined): value is TomlTable {
  return typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

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
