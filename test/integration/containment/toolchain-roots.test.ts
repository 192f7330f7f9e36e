/**
 * The toolchain a contained runtime is given (read-only): the PATH entry its executable was found
 * in, the real install root behind a symlinked npm bin (the whole node_modules folder), the prefix
 * of its `#!` interpreter and of Citadel's own Node; never anything under /usr (always seen).
 */
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolchainRoots } from '../../../main/orchestrator/branch-containment';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

function executable(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

describe('toolchain roots', () => {
  it('an npm-installed CLI behind a bin symlink, run by a Node found on PATH outside /usr', async () => {
    const base = realpathSync(tempDir('citadel-toolchain-'));
    const entry = path.join(base, 'prefix', 'lib', 'node_modules', '@vendor', 'cli', 'cli.js');
    executable(entry, '#!/usr/bin/env node\n');
    mkdirSync(path.join(base, 'prefix', 'bin'));
    symlinkSync(entry, path.join(base, 'prefix', 'bin', 'claude'));
    executable(path.join(base, 'nvm', 'v22', 'bin', 'node'), '');
    const found = path.join(base, 'prefix', 'bin', 'claude');
    const env = { PATH: [path.join(base, 'nvm', 'v22', 'bin'), path.join(base, 'prefix', 'bin'), '/usr/bin'].join(':') };
    expect(await toolchainRoots({ command: found, foundAt: found, argsPrefix: [] }, env, '/usr/bin/node')).toEqual([
      path.join(base, 'nvm', 'v22'),
      path.join(base, 'prefix', 'bin'),
      path.join(base, 'prefix', 'lib', 'node_modules'),
    ]);
  });

  it('a script with an absolute #! interpreter, and Citadel’s Node outside /usr', async () => {
    const base = realpathSync(tempDir('citadel-toolchain-'));
    executable(path.join(base, 'opt', 'py', 'bin', 'python3'), '');
    executable(path.join(base, 'tools', 'codex'), `#!${path.join(base, 'opt', 'py', 'bin', 'python3')} -u\n`);
    executable(path.join(base, 'opt', 'node', 'bin', 'node'), '');
    const found = path.join(base, 'tools', 'codex');
    expect(await toolchainRoots({ command: found, foundAt: found, argsPrefix: [] }, { PATH: '/usr/bin' }, path.join(base, 'opt', 'node', 'bin', 'node'))).toEqual([
      path.join(base, 'opt', 'node'),
      path.join(base, 'opt', 'py'),
      path.join(base, 'tools'),
    ]);
    expect(await toolchainRoots(null, { PATH: '/usr/bin' }, '/usr/bin/node')).toEqual([]);
  });

  it('never climbs to a prefix that holds the home: `~/bin/python3` gives `~/bin`, not the whole home', async () => {
    const home = realpathSync(tempDir('citadel-toolchain-home-'));
    executable(path.join(home, 'bin', 'python3'), '');
    executable(path.join(home, 'tools', 'codex'), `#!${path.join(home, 'bin', 'python3')}\n`);
    const found = path.join(home, 'tools', 'codex');
    const roots = (env: Record<string, string>) => toolchainRoots({ command: found, foundAt: found, argsPrefix: [] }, env, '/usr/bin/node');
    expect(await roots({ PATH: '/usr/bin', HOME: home })).toEqual([path.join(home, 'bin'), path.join(home, 'tools')]);
    // The control: without that rule the interpreter's prefix would be the home itself.
    expect(await roots({ PATH: '/usr/bin' })).toEqual([home]);
  });
});
