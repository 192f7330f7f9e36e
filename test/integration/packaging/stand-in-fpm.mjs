#!/usr/bin/env node
// A stand-in for fpm (`CUSTOM_FPM_PATH`), which electron-builder downloads and these machines cannot:
// it takes fpm's `-s dir -t deb` arguments as electron-builder passes them and builds the package with
// the real dpkg-deb, so the test reads the control fields a user's apt would. An option it does not
// know fails the build rather than being dropped unseen.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const VALUED = new Set([
  '-s', '-t', '-d', '--deb-recommends', '--deb-compression', '--deb-priority', '--architecture', '--after-install', '--after-remove',
  '--description', '--version', '--package', '--name', '--maintainer', '--vendor', '--url', '--category', '--license', '--iteration',
]);
const FLAGS = new Set(['--force']);

const options = new Map();
const mappings = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 1) {
  const arg = argv[i];
  if (VALUED.has(arg)) options.set(arg, [...(options.get(arg) ?? []), argv[(i += 1)]]);
  else if (FLAGS.has(arg)) continue;
  else if (arg.startsWith('-')) throw new Error(`stand-in fpm: unknown option ${arg}`);
  else mappings.push(arg);
}
const one = (name) => options.get(name)?.at(-1);
if (one('-s') !== 'dir' || one('-t') !== 'deb') throw new Error(`stand-in fpm builds only -s dir -t deb, not ${one('-s')} -> ${one('-t')}`);

const stage = mkdtempSync(path.join(tmpdir(), 'stand-in-fpm-'));
try {
  for (const mapping of mappings) {
    const [source, target] = mapping.split('=');
    const destination = path.join(stage, target);
    mkdirSync(path.dirname(destination), { recursive: true });
    cpSync(source, destination, { recursive: true, verbatimSymlinks: true });
  }
  mkdirSync(path.join(stage, 'DEBIAN'));
  const [summary, ...rest] = one('--description').split('\n');
  const control = [
    `Package: ${one('--name')}`,
    `Version: ${one('--version')}`,
    `Architecture: ${one('--architecture')}`,
    `Maintainer: ${one('--maintainer')}`,
    `Depends: ${(options.get('-d') ?? []).join(', ')}`,
    `Recommends: ${(options.get('--deb-recommends') ?? []).join(', ')}`,
    `Section: ${one('--category') ?? 'misc'}`,
    `Priority: ${one('--deb-priority') ?? 'optional'}`,
    `Homepage: ${one('--url')}`,
    `Description: ${summary}`,
    ...rest.map((line) => (line.trim() === '' ? ' .' : ` ${line.trim()}`)),
  ];
  writeFileSync(path.join(stage, 'DEBIAN', 'control'), `${control.join('\n')}\n`);
  for (const [option, script] of [['--after-install', 'postinst'], ['--after-remove', 'postrm']]) {
    writeFileSync(path.join(stage, 'DEBIAN', script), readFileSync(one(option)));
    chmodSync(path.join(stage, 'DEBIAN', script), 0o755);
  }
  execFileSync('dpkg-deb', ['--root-owner-group', `-Z${one('--deb-compression') ?? 'xz'}`, '--build', stage, one('--package')], { stdio: 'inherit' });
} finally {
  rmSync(stage, { recursive: true, force: true });
}
