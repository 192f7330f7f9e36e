import { extractAll, extractFile, listPackage, statFile } from '@electron/asar';
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_EXTERNALS } from '../../../build/bundle-externals.mjs';
import { supervisorScriptPath } from '../../../main/app/supervisor-node';
import { REPO_ROOT } from '../../support/run-cli';
import { moduleSpecifiers, packageOf } from './module-specifiers';
import { FUSE_DISABLED, FUSE_ENABLED, writeStandInElectronDist } from './stand-in-electron';

const run = promisify(execFile);
const LOAD_PACKAGED_MAIN = fileURLToPath(new URL('./load-packaged-main.mjs', import.meta.url));
const STAND_IN_FPM = fileURLToPath(new URL('./stand-in-fpm.mjs', import.meta.url));
const ENSURE_OS_PACKAGES = path.join(REPO_ROOT, 'test', 'support', 'ensure-os-packages.sh');
/** electron-builder 26's own deb depends (FpmTarget.getDefaultDepends), which a `depends` list replaces. */
const ELECTRON_DEB_DEPENDS = ['libgtk-3-0', 'libnotify4', 'libnss3', 'libxss1', 'libxtst6', 'xdg-utils', 'libatspi2.0-0', 'libuuid1', 'libsecret-1-0'];
const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * `electron-builder --linux dir` on the real electron-builder.yml, with a stand-in Electron dist.
 * It runs in a temp project (package.json, lock file and config copied, node_modules linked) so the
 * repository's own out/ is never rebuilt under other tests: electron-vite builds the three app
 * bundles into the temp out/, and the CLI bundles the global setup built are copied beside them.
 */
let project: string;
let output: string;
let resources: string;
let asar: string;
let unpacked: string;

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'citadel-packaging-'));
  for (const file of ['package.json', 'package-lock.json', 'electron-builder.yml']) copyFileSync(path.join(REPO_ROOT, file), path.join(project, file));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(project, 'node_modules'));

  await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--outDir', path.join(project, 'out')], {
    cwd: REPO_ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  mkdirSync(path.join(project, 'out', 'cli'));
  for (const file of ['citadel.mjs', 'supervisor.mjs', 'simulated-runtime.mjs']) {
    copyFileSync(path.join(REPO_ROOT, 'out', 'cli', file), path.join(project, 'out', 'cli', file));
  }

  const electronDist = writeStandInElectronDist(path.join(project, 'stand-in-electron'));
  // Outside the project: Node would otherwise resolve the packaged CLI's imports through the
  // project's node_modules link, hiding a package missing from the app.
  output = mkdtempSync(path.join(tmpdir(), 'citadel-packaged-'));
  await run(
    process.execPath,
    [path.join(REPO_ROOT, 'node_modules/electron-builder/cli.js'), '--projectDir', project, '--linux', 'dir', `-c.electronDist=${electronDist}`, `-c.directories.output=${output}`],
    { cwd: project, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, CI: 'true' } },
  );
  resources = path.join(output, 'linux-unpacked', 'resources');
  asar = path.join(resources, 'app.asar');
  unpacked = path.join(resources, 'app.asar.unpacked');
}, 240_000);

afterAll(() => {
  for (const dir of [project, output]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Paths in the archive, relative and with forward slashes (`out/main/main.js`). */
const archived = () => listPackage(asar, { isPack: false }).map((file) => file.replace(/\\/g, '/').replace(/^\//, ''));
const inArchive = (file: string) => (statFile(asar, file) as { unpacked?: boolean }).unpacked !== true;

describe('the packaged app (linux-unpacked)', () => {
  it('holds the main, preload and renderer bundles inside app.asar', () => {
    const files = archived();
    for (const file of ['out/main/main.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'package.json']) {
      expect(files, file).toContain(file);
      expect(inArchive(file), `${file} is packed, not unpacked`).toBe(true);
    }
  });

  it('starts at the main bundle', () => {
    const manifest = JSON.parse(extractFile(asar, 'package.json').toString('utf8')) as { main?: string; type?: string };
    expect(manifest).toMatchObject({ main: 'out/main/main.js', type: 'module' });
    expect(archived()).toContain(manifest.main);
  });

  it("ships every asset the renderer's index.html references", () => {
    const html = extractFile(asar, 'out/renderer/index.html').toString('utf8');
    const assets = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((match) => `out/renderer/${match[1]}`);
    expect(assets.length).toBeGreaterThan(0);
    expect(archived()).toEqual(expect.arrayContaining(assets));
  });

  it('ships no source maps, sources or tests', () => {
    const own = archived().filter((file) => !file.startsWith('node_modules/'));
    expect(own.filter((file) => /\.map$|\.ts$|\.svelte$|^test\/|^renderer\/|^main\/|^shared\//.test(file))).toEqual([]);
  });

  it('keeps the sandboxed preload free of any require but electron', () => {
    const preload = extractFile(asar, 'out/preload/index.cjs').toString('utf8');
    const required = new Set([...preload.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1]));
    expect([...required]).toEqual(['electron']);
  });

  it('bundles every package into main and the CLI but electron and the keychain binding', () => {
    const bundles = archived().filter((file) => /^out\/(main|cli)\/.*\.m?js$/.test(file));
    expect(bundles).toEqual(expect.arrayContaining(['out/main/main.js', 'out/cli/citadel.mjs', 'out/cli/supervisor.mjs']));
    for (const bundle of bundles) {
      const { literal, computed } = moduleSpecifiers(extractFile(asar, bundle).toString('utf8'));
      const allowed = bundle.startsWith('out/main/') ? ['electron', ...NATIVE_EXTERNALS] : NATIVE_EXTERNALS;
      expect({ bundle, computed, packages: [...literal].filter((specifier) => packageOf(specifier) !== undefined && !allowed.includes(specifier)) }).toEqual({
        bundle,
        computed: 0,
        packages: [],
      });
      // Chunks import each other by relative path: each must be in the archive too.
      for (const relative of [...literal].filter((specifier) => specifier.startsWith('.'))) {
        expect(archived(), `${bundle} imports ${relative}`).toContain(path.posix.join(path.posix.dirname(bundle), relative));
      }
    }
  });

  it('ships of node_modules only the keychain binding and its platform package, unpacked', () => {
    const manifests = archived().filter((file) => file.startsWith('node_modules/') && file.endsWith('/package.json'));
    const packages = new Set(manifests.map((file) => packageOf(file.slice('node_modules/'.length))));
    const platform = `@napi-rs/keyring-${process.platform}-${process.arch}`;
    expect([...packages].sort()).toEqual([...NATIVE_EXTERNALS, expect.stringMatching(new RegExp(`^${platform}(-|$)`))]);
    const binding = archived().filter((file) => file.startsWith(`node_modules/${platform}`) && file.endsWith('.node'));
    expect(binding).toHaveLength(1);
    expect(inArchive(binding[0] ?? ''), 'the binding is unpacked: a .node file cannot load from app.asar').toBe(false);
    expect(existsSync(path.join(unpacked, binding[0] ?? ''))).toBe(true);
  });

  it('loads the main bundle with plain Node from the extracted app, every import but electron resolved there', async () => {
    // Extracting reads unpacked files from app.asar.unpacked, as Electron's asar support does.
    const app = path.join(output, 'extracted');
    extractAll(asar, app);
    const { electronNames } = moduleSpecifiers(readFileSync(path.join(app, 'out', 'main', 'main.js'), 'utf8'));
    const child = await run(process.execPath, [LOAD_PACKAGED_MAIN, app, [...electronNames].join(','), NATIVE_EXTERNALS.join(',')], { cwd: app, env: {} });
    const loaded = JSON.parse(child.stdout) as { calls: string[]; natives: Record<string, { resolved: string; keys: string[] }> };
    // main.ts's top-level code ran to its end: it asked for the single-instance lock and quit.
    expect(loaded.calls).toEqual(expect.arrayContaining(['app.requestSingleInstanceLock', 'app.quit']));
    expect(loaded.natives['@napi-rs/keyring']).toMatchObject({ resolved: 'node_modules/@napi-rs/keyring/index.js', keys: expect.arrayContaining(['AsyncEntry']) });
  });

  it('unpacks the CLI and the keychain binding, so plain Node runs it from the installed app', async () => {
    const cli = await run(process.execPath, [path.join(unpacked, 'out', 'cli', 'citadel.mjs'), '--version'], { env: {} });
    expect(cli.stdout.trim()).toBe(PACKAGE_VERSION);
  });

  it('puts the supervisor where the app looks for it, runnable by plain Node', async () => {
    const script = supervisorScriptPath(asar);
    expect(existsSync(script)).toBe(true);
    // Exit code 2 is the supervisor's own "no usable launch spec": its imports all resolved.
    const started = await run(process.execPath, [script], { env: {} }).then(
      () => 0,
      (error: { code?: number }) => error.code,
    );
    expect(started).toBe(2);
  });

  it('builds a deb whose Depends name every package `npm run demo` ensures, beside Electron\'s own', async () => {
    // The demo's subset in ensure-os-packages.sh (`needs=(git:git bwrap:bubblewrap …)`) is the one list.
    const demoNeeds = /if \[ "\$purpose" = demo \]; then\n\s*needs=\(([^)]*)\)/.exec(readFileSync(ENSURE_OS_PACKAGES, 'utf8'))?.[1];
    const demoPackages = (demoNeeds ?? '').trim().split(/\s+/).map((need) => need.split(':')[1]);
    expect(demoPackages).toEqual(['git', 'bubblewrap']);

    const debs = path.join(output, 'debs');
    await run(
      process.execPath,
      [
        path.join(REPO_ROOT, 'node_modules/electron-builder/cli.js'),
        '--projectDir',
        project,
        '--linux',
        'deb',
        '--prepackaged',
        path.join(output, 'linux-unpacked'),
        `-c.directories.output=${debs}`,
      ],
      { cwd: project, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, CI: 'true', CUSTOM_FPM_PATH: STAND_IN_FPM } },
    );
    const deb = path.join(debs, readdirSync(debs).find((file) => file.endsWith('.deb')) ?? 'no .deb was built');
    const field = async (name: string) => (await run('dpkg-deb', ['--field', deb, name])).stdout.trim().split(/,\s*/);
    // Naming depends replaces electron-builder's defaults (what Electron itself needs): they stay first.
    expect(await field('Depends')).toEqual([...ELECTRON_DEB_DEPENDS, ...demoPackages]);
    const contents = (await run('dpkg-deb', ['--contents', deb], { maxBuffer: 16 * 1024 * 1024 })).stdout;
    expect(contents).toMatch(/\/opt\/Citadel Mission Control\/resources\/app\.asar\n/);
  }, 120_000);

  it('flips the fuses: no run-as-node, no inspector, no NODE_OPTIONS, code only from app.asar', async () => {
    const wire = await getCurrentFuseWire(path.join(resources, '..', 'citadel-mission-control'));
    expect({
      runAsNode: wire[FuseV1Options.RunAsNode],
      inspect: wire[FuseV1Options.EnableNodeCliInspectArguments],
      nodeOptions: wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable],
      onlyAsar: wire[FuseV1Options.OnlyLoadAppFromAsar],
      fileProtocol: wire[FuseV1Options.GrantFileProtocolExtraPrivileges],
    }).toEqual({
      runAsNode: FUSE_DISABLED,
      inspect: FUSE_DISABLED,
      nodeOptions: FUSE_DISABLED,
      onlyAsar: FUSE_ENABLED,
      fileProtocol: FUSE_DISABLED,
    });
  });
});
