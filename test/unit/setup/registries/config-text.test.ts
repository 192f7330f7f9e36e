/**
 * Issue 30: the TOML (smol-toml) and INI readers behind the registries of bun, uv, Cargo, Poetry and pip
 * read what those tools' real settings files contain, and refuse what they cannot read.
 */
import { describe, expect, it } from 'vitest';
import { parseIni, parseToml, tomlString, tomlStrings, tomlTable, tomlTables } from '../../../../main/setup/registries/config-text';

describe('the TOML reader', () => {
  it("reads a Cargo config's tables, dotted and quoted keys, inline tables and comments", () => {
    const table = parseToml(
      [
        '# mirror',
        '[source.crates-io]',
        'replace-with = "mirror"   # the company mirror',
        '',
        '[source."mirror"]',
        "registry = 'sparse+https://cargo.example.com/index/'",
        '[registries]',
        'internal = { index = "https://git.example.com/index.git", protocol = "git" }',
        'net.retry = 3',
      ].join('\n'),
      'config.toml',
    );
    expect(tomlString(tomlTable(table, 'source', 'crates-io'), 'replace-with')).toBe('mirror');
    expect(tomlString(tomlTable(table, 'source', 'mirror'), 'registry')).toBe('sparse+https://cargo.example.com/index/');
    expect(tomlString(tomlTable(table, 'registries', 'internal'), 'index')).toBe('https://git.example.com/index.git');
    expect(tomlTable(table, 'registries', 'net')?.retry).toBe(3);
    expect(tomlString(tomlTable(table, 'registries', 'net'), 'retry'), 'a number is not a registry URL').toBeNull();
  });

  it('reads arrays over several lines, arrays of tables, and a pyproject with multi-line strings', () => {
    const table = parseToml(
      [
        '[project]',
        'name = "demo"',
        'description = """',
        'A "quoted" [not a table]',
        'index-url = "https://evil.example/"',
        '"""',
        "license = '''MIT'''",
        'dependencies = [',
        '  "requests>=2", # http',
        '  "rich",',
        ']',
        '[tool.uv]',
        'extra-index-url = ["https://a.example.com/simple", "https://b.example.com/simple"]',
        '[[tool.uv.index]]',
        'name = "one"',
        'url = "https://one.example.com/simple"',
        'default = true',
        '[[tool.uv.index]]',
        'url = "https://two.example.com/simple"',
        'escaped = "tab\\there \\u00e9"',
      ].join('\n'),
      'pyproject.toml',
    );
    expect(tomlString(tomlTable(table, 'project'), 'description')).toBe('A "quoted" [not a table]\nindex-url = "https://evil.example/"\n');
    expect(tomlStrings(tomlTable(table, 'project'), 'dependencies')).toEqual(['requests>=2', 'rich']);
    const uv = tomlTable(table, 'tool', 'uv');
    expect(tomlStrings(uv, 'extra-index-url')).toEqual(['https://a.example.com/simple', 'https://b.example.com/simple']);
    const indexes = tomlTables(uv, 'index');
    expect(indexes.map((entry) => [tomlString(entry, 'url'), entry.default ?? null])).toEqual([
      ['https://one.example.com/simple', true],
      ['https://two.example.com/simple', null],
    ]);
    expect(tomlString(indexes[1] ?? null, 'escaped')).toBe('tab\there é');
  });

  it('refuses what it cannot read, naming the file and line', () => {
    for (const [text, line] of [
      ['a = "ok"\nb = "unterminated', 2],
      ['[table\nx = 1', 1],
      ['x = "a" trailing', 1],
      ['x = [1, 2', 1],
    ] as const) {
      expect(() => parseToml(text, 'bunfig.toml'), text).toThrow(expect.objectContaining({ code: 'SETUP_REGISTRY_UNSUPPORTED', details: { file: 'bunfig.toml', line } }));
    }
  });
});

describe('the INI reader (pip.conf)', () => {
  it('reads sections, both separators, continuation lines, and normalizes keys as pip does', () => {
    const sections = parseIni(['; comment', '[global]', 'index_url = https://pypi.example.com/simple', 'extra-index-url =', '    https://a.example.com/simple', '    https://b.example.com/simple', '[install]', 'Timeout: 60', '# trailing'].join('\n'));
    expect(sections.get('global')?.get('index-url')).toEqual({ value: 'https://pypi.example.com/simple', line: 3 });
    expect(sections.get('global')?.get('extra-index-url')?.value.split(/\s+/).filter(Boolean)).toEqual(['https://a.example.com/simple', 'https://b.example.com/simple']);
    expect(sections.get('install')?.get('timeout')?.value).toBe('60');
  });
});
