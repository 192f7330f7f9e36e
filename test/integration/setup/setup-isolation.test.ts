/**
 * Issue 27, the attacks on setup an attacker's pass reproduced, each run end to end through the real
 * CLI, real npm and real bubblewrap, against a fake home and a package registry on loopback:
 * - a committed `.npmrc` whose `cache=` names the home, Citadel's home or the repository no longer
 *   chooses what a setup step may write (npm's settings are read without the project's file, and
 *   each step writes only a cache of its own);
 * - a committed `.npmrc` naming another registry is refused before any fork state exists;
 * - what a setup step plants in its npm cache (an `_npx` install, a forged tarball and index entry)
 *   reaches neither another fork's setup nor the operator's own `npx`.
 * Each has a control showing the same files do what the attack needs when Citadel's choice is not
 * in the way (npm itself, run as the operator or as the old code read it).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkHarness } from '../../support/fork-harness';
import { runCli } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const execFileAsync = promisify(execFile);

const SECRET = 'ssh-private-key-7c1e0a93';
const GENUINE = 'GENUINE-TOOL-RAN';
const PLANTED = 'PLANTED-TOOL-RAN';

/** A one-package registry on loopback: genuine-tool@1.0.0, whose bin prints GENUINE. */
let registry = '';
let server: http.Server;
let tarballIntegrity = '';

beforeAll(async () => {
  const work = tempDir('citadel-registry-');
  const pkg = path.join(work, 'pkg');
  mkdirSync(pkg);
  writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'genuine-tool', version: '1.0.0', bin: { 'genuine-tool': 'bin.js' } }));
  writeFileSync(path.join(pkg, 'bin.js'), `#!/usr/bin/env node\nconsole.log('${GENUINE}');\n`, { mode: 0o755 });
  execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: pkg, stdio: 'pipe' });
  const tarball = readFileSync(path.join(work, 'genuine-tool-1.0.0.tgz'));
  tarballIntegrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  server = http.createServer((req, res) => {
    if (req.url === '/genuine-tool') {
      const dist = { tarball: `${registry}genuine-tool/-/genuine-tool-1.0.0.tgz`, integrity: tarballIntegrity };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: 'genuine-tool', 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { name: 'genuine-tool', version: '1.0.0', bin: { 'genuine-tool': 'bin.js' }, dist } } }));
    } else if (req.url === '/genuine-tool/-/genuine-tool-1.0.0.tgz') {
      res.end(tarball);
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}, 60_000);

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/**
 * The setup script a hostile repository commits: through whatever `npm_config_cache` it is given it
 * plants an `_npx` install of genuine-tool that prints PLANTED (npx trusts an install it finds in its
 * cache) and a forged copy of the genuine tarball under its real digest, then tries the operator's
 * files directly.
 */
function plantScript(targets: { home: string }): string {
  const npxHash = createHash('sha512').update('genuine-tool').digest('hex').slice(0, 16);
  const lockEntry = { version: '1.0.0', resolved: `${registry}genuine-tool/-/genuine-tool-1.0.0.tgz`, integrity: tarballIntegrity, bin: { 'genuine-tool': 'bin.js' } };
  const hex = Buffer.from(tarballIntegrity.slice('sha512-'.length), 'base64').toString('hex');
  const files: Record<string, string> = {
    [`_npx/${npxHash}/package.json`]: JSON.stringify({ dependencies: { 'genuine-tool': '^1.0.0' }, _npx: { packages: ['genuine-tool'] } }),
    [`_npx/${npxHash}/package-lock.json`]: JSON.stringify({ name: npxHash, lockfileVersion: 3, requires: true, packages: { '': { dependencies: { 'genuine-tool': '^1.0.0' } }, 'node_modules/genuine-tool': lockEntry } }),
    [`_npx/${npxHash}/node_modules/.package-lock.json`]: JSON.stringify({ name: npxHash, lockfileVersion: 3, requires: true, packages: { 'node_modules/genuine-tool': lockEntry } }),
    [`_npx/${npxHash}/node_modules/genuine-tool/package.json`]: JSON.stringify({ name: 'genuine-tool', version: '1.0.0', bin: { 'genuine-tool': 'bin.js' } }),
    [`_npx/${npxHash}/node_modules/genuine-tool/bin.js`]: `#!/usr/bin/env node\nconsole.log('${PLANTED}');\n`,
    [`_cacache/content-v2/sha512/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex.slice(4)}`]: 'forged tarball',
    'planted-by-setup': 'planted',
  };
  return `
const fs = require('node:fs');
const path = require('node:path');
const cache = process.env.npm_config_cache;
console.log('setup cache: ' + cache);
for (const [name, text] of Object.entries(${JSON.stringify(files)})) {
  const file = path.join(cache, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode: name.endsWith('bin.js') ? 0o755 : 0o644 });
}
fs.mkdirSync(path.join(cache, '_npx/${npxHash}/node_modules/.bin'), { recursive: true });
fs.symlinkSync('../genuine-tool/bin.js', path.join(cache, '_npx/${npxHash}/node_modules/.bin/genuine-tool'));
try { fs.appendFileSync(${JSON.stringify(path.join(targets.home, '.bashrc'))}, 'echo owned\\n'); console.log('bashrc: written'); } catch (e) { console.log('bashrc: ' + e.code); }
try { console.log('key: ' + fs.readFileSync(${JSON.stringify(path.join(targets.home, '.ssh', 'id_ed25519'))}, 'utf8')); } catch (e) { console.log('key: ' + e.code); }
`;
}

interface Project {
  readonly h: ForkHarness;
  readonly home: string;
  /** The operator's environment: a fake home (its ~/.npm is the operator's npm cache) and the loopback registry. */
  readonly env: Record<string, string>;
}

function hostileProject(prefix: string, npmrc: string | null, setup: readonly Record<string, unknown>[]): Project {
  const h = new ForkHarness(tempDir(prefix));
  const home = path.join(h.base, 'home');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), SECRET, { mode: 0o600 });
  writeFileSync(path.join(home, '.bashrc'), '# the operator\'s\n');
  writeFileSync(path.join(h.repo, 'package.json'), JSON.stringify({ type: 'commonjs', scripts: { plant: 'node plant.js', test: 'node -e 0' } }));
  writeFileSync(path.join(h.repo, 'plant.js'), plantScript({ home }));
  if (npmrc !== null) writeFileSync(path.join(h.repo, '.npmrc'), npmrc);
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'hostile project');
  writeFileSync(h.workflowFile, JSON.stringify({ schema_version: 2, steps: [{ id: 'fix', instruction: 'Fix it.' }], setup, verifier: { command: 'node', args: ['-e', '0'], timeout_seconds: 60 }, protected_paths: [] }));
  // The operator's registry is set where operators set it, in their own ~/.npmrc; their cache is npm's default ~/.npm.
  writeFileSync(path.join(home, '.npmrc'), `registry=${registry}\n`);
  return { h, home, env: { HOME: home, npm_config_update_notifier: 'false' } };
}

/** The operator's shell: the harness's environment without the npm_config_* the test runner's own npm set. */
function operatorShell(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && !entry[0].toLowerCase().startsWith('npm_config_')));
}

/**
 * npm run as the operator would in a shell of its own (none of the npm_config_* the test runner's
 * npm set), asynchronously: the registry is served by this very process.
 */
async function npmIn(cwd: string, args: readonly string[], env: Record<string, string>): Promise<string> {
  return (await execFileAsync('npm', args, { cwd, env: { ...operatorShell(process.env), ...env }, encoding: 'utf8' })).stdout;
}

const PLANT = { id: 'plant', command: 'npm', args: ['run', 'plant'], timeout_seconds: 120, network: 'none' };

async function start(p: Project, extra: readonly string[] = []) {
  await p.h.simulate({ claude: { edits: [] }, codex: { edits: [] } });
  const args = ['fork', 'start', 'Fix it', '--repo', p.h.repo, '--runtimes', 'claude,codex', '--workflow', p.h.workflowFile, '--json', ...extra];
  return runCli(args, { env: operatorShell(p.h.env(p.env)), cwd: p.h.base });
}

/** What the operator's own npx runs, with the operator's cache (~/.npm of the fake home) and registry. */
function operatorNpx(p: Project, cache?: string): Promise<string> {
  return npmIn(p.home, ['exec', '--yes', ...(cache === undefined ? [] : ['--cache', cache]), '--', 'genuine-tool'], p.env);
}

describe('setup cannot choose its mounts, nor leave code for others', () => {
  it('a committed .npmrc cache= (the home, Citadel home, the repository) chooses nothing: setup writes only its own cache', { timeout: 240_000 }, async () => {
    const p = hostileProject('citadel-npmrc-cache-', null, [PLANT]);
    const targets = { home: p.home, 'citadel-home': p.h.root, repository: p.h.repo };
    for (const [label, target] of Object.entries(targets)) {
      writeFileSync(path.join(p.h.repo, '.npmrc'), `cache=${target}\n`);
      p.h.gitIn(p.h.repo, 'add', '.npmrc');
      p.h.gitIn(p.h.repo, 'commit', '-q', '-m', `cache in ${label}`);
      // Control: npm run in the repository (where the old code read its settings) takes the cache from the file.
      expect((await npmIn(p.h.repo, ['config', 'get', 'cache'], p.env)).trim(), label).toBe(target);

      const run = await start(p);
      expect(run.code, `${label}: ${run.stdout}${run.stderr}`).toBe(0);
      const doc = JSON.parse(run.stdout) as { fork_id: string; containment: { mode: string } };
      const output = readFileSync(p.h.attemptFile(doc.fork_id, 'branch-claude', 'setup-plant.out'), 'utf8');
      const receipt = p.h.readJson<{ receipt: { setup: { containment: { mode: string }; steps: { status: string }[] } } }>(p.h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json')).receipt;
      expect(receipt.setup.containment.mode, label).toBe('contained');
      expect(receipt.setup.steps[0]?.status, `${label}: ${output}`).toBe('passed');
      // The step was handed Citadel's cache of its own, which is gone after the step.
      const cache = /setup cache: (.*)/.exec(output)?.[1] ?? '';
      expect(cache.startsWith(path.join(p.h.base, 'xdg-cache', 'citadel', 'npm', 'steps')), `${label}: ${output}`).toBe(true);
      expect(existsSync(cache), label).toBe(false);
      expect(existsSync(path.join(target, 'planted-by-setup')), label).toBe(false);
      expect(existsSync(path.join(target, '_npx')), label).toBe(false);
      // Nor can it reach the operator's files directly.
      expect(output, label).toContain('bashrc: ENOENT');
      expect(output, label).toContain('key: ENOENT');
      expect(output, label).not.toContain(SECRET);
      expect(readFileSync(path.join(p.home, '.bashrc'), 'utf8'), label).toBe('# the operator\'s\n');
    }
  });

  it('a committed .npmrc naming another registry is refused before any fork state exists, with its file and line', { timeout: 120_000 }, async () => {
    for (const line of ['registry=https://registry.evil.example/', '@acme:registry = "https://npm.evil.example/"']) {
      const p = hostileProject('citadel-npmrc-registry-', `; project settings\n${line}\n`, [{ ...PLANT, network: 'registries' }]);
      const run = await start(p);
      expect(run.code, line).toBe(1);
      const said = run.stdout + run.stderr;
      expect(said, line).toContain('SETUP_REGISTRY_UNSUPPORTED');
      expect(said, line).toContain('.npmrc:2');
      expect(said, line).toContain('evil.example');
      expect(existsSync(path.join(p.h.root, 'forks')) ? readdirSync(path.join(p.h.root, 'forks')) : [], line).toEqual([]);
      expect(p.h.gitIn(p.h.repo, 'for-each-ref', 'refs/heads/citadel'), line).toBe('');
      // Control: npm itself, run in the repository, takes the file's registry.
      const key = line.startsWith('@acme') ? '@acme:registry' : 'registry';
      expect(await npmIn(p.h.repo, ['config', 'get', key], p.env), line).toContain('evil.example');
    }
    // A committed symlink would make npm read a file no check has read.
    const linked = hostileProject('citadel-npmrc-link-', null, [PLANT]);
    writeFileSync(path.join(linked.h.base, 'elsewhere.npmrc'), 'registry=https://registry.evil.example/\n');
    symlinkSync(path.join(linked.h.base, 'elsewhere.npmrc'), path.join(linked.h.repo, '.npmrc'));
    linked.h.gitIn(linked.h.repo, 'add', '.npmrc');
    linked.h.gitIn(linked.h.repo, 'commit', '-q', '-m', 'linked settings');
    const refusedLink = await start(linked);
    expect(refusedLink.code).toBe(1);
    expect(refusedLink.stdout + refusedLink.stderr).toMatch(/SETUP_REGISTRY_UNSUPPORTED[\s\S]*\.npmrc is a symlink/);
    // The operator's own registry, named again by the repository, is no reason to refuse.
    const same = hostileProject('citadel-npmrc-same-', `registry=${registry}\n`, [PLANT]);
    expect((await start(same)).code).toBe(0);
  });

  it('what a setup step plants in its npm cache (_npx, a forged tarball) reaches neither another fork nor the operator\'s npx', { timeout: 240_000 }, async () => {
    const p = hostileProject('citadel-npx-plant-', null, [PLANT]);
    const planted = await start(p);
    expect(planted.code, planted.stdout + planted.stderr).toBe(0);
    const plantedFork = (JSON.parse(planted.stdout) as { fork_id: string }).fork_id;
    expect(readFileSync(p.h.attemptFile(plantedFork, 'branch-claude', 'setup-plant.out'), 'utf8')).toContain('setup cache: ');

    // The operator's own npx, with the operator's cache, runs the genuine package.
    expect(await operatorNpx(p)).toContain(GENUINE);

    // A second fork whose setup runs the same npx (runtime-only: it reaches the loopback registry) runs it genuine too.
    writeFileSync(p.h.workflowFile, JSON.stringify({ ...JSON.parse(readFileSync(p.h.workflowFile, 'utf8')), setup: [{ id: 'tool', command: 'npx', args: ['--yes', 'genuine-tool'], timeout_seconds: 120, network: 'none' }] }));
    const second = await start(p, ['--containment', 'runtime-only']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const secondOutput = readFileSync(p.h.attemptFile((JSON.parse(second.stdout) as { fork_id: string }).fork_id, 'branch-claude', 'setup-tool.out'), 'utf8');
    expect(secondOutput).toContain(GENUINE);
    expect(secondOutput).not.toContain(PLANTED);

    // The forged tarball never entered Citadel's store: every file there hashes to its name.
    const store = path.join(p.h.base, 'xdg-cache', 'citadel', 'npm', 'verified');
    for (const name of readdirSync(store, { recursive: true, encoding: 'utf8' }).filter((n) => /[0-9a-f]{128}$/.test(n))) {
      expect(createHash('sha512').update(readFileSync(path.join(store, name))).digest('hex')).toBe(path.basename(name));
    }

    // Control: the same script given the operator's cache (what setup was handed before) makes the operator's npx run the plant.
    const operatorCache = path.join(p.h.base, 'operator-cache-copy');
    await npmIn(p.h.repo, ['run', 'plant'], { ...p.env, npm_config_cache: operatorCache });
    expect(await operatorNpx(p, operatorCache)).toContain(PLANTED);
  });
});
