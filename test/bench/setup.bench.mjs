// Benchmark: Citadel's setup of 4 branch worktrees (`npm ci --prefer-offline` from a warm cache)
// against the same `npm ci` run 4 times by hand, one after another, in 4 fresh checkouts.
//
// Issue 13 target: at most 1.2x. The Citadel side is a real `citadel fork start` (built CLI, child
// process, 4 simulated runtimes, contained when bubblewrap works: the default); what is measured
// is its setup phase as its own journal records it, from the first `setup.run` intent to the last
// `setup.run` result: reading npm's config, each sandbox and egress bridge, the 4 `npm ci` (side by
// side), and the fingerprints of what they installed. Since issue 27 each step also gets a cache
// of its own, seeded by copy with the locked tarballs from Citadel's verified store (filled from
// the warm cache in the first round, kept across rounds as an operator's would be). The hand side
// is `npm ci` in a fresh `git worktree add` checkout, 4 times, timed around the npm processes only.
// Both use one warm cache, warmed once before the rounds; the two sides alternate, in alternating
// order; medians compared.
//
// The project has two small real dependencies (is-number, ms) from the registry npm is configured
// with; the warm-up is the only step that may reach it.
//
// Environment knobs: CITADEL_BENCH_ROUNDS (default 3), CITADEL_BENCH_KEEP=1 (keep the temp dir).

import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = path.join(REPO_ROOT, 'out', 'cli', 'citadel.mjs');
const SIMULATOR = path.join(REPO_ROOT, 'out', 'cli', 'simulated-runtime.mjs');

export const name = 'setup-vs-npm-ci-by-hand';
const TARGET_RATIO = 1.2;
const BRANCHES = 4;
const NPM_CI = ['ci', '--prefer-offline', '--no-audit', '--no-fund'];

const PACKAGE_JSON = { name: 'bench-project', version: '1.0.0', private: true, scripts: { test: 'node -e 0' }, dependencies: { 'is-number': '7.0.0', ms: '2.1.3' } };
const PROFILES = ['claude-a', 'claude-b', 'codex-a', 'codex-b'].map((id) => ({ profile_id: id, runtime: id.split('-')[0], model: null, local_provider: null, adapter_options: {} }));
const WORKFLOW = {
  schema_version: 2,
  steps: [{ id: 'implement', instruction: 'bench' }],
  setup: [{ id: 'install', command: 'npm', args: NPM_CI, timeout_seconds: 600, network: 'registries' }],
  verifier: { command: 'node', args: ['-e', '0'], timeout_seconds: 60 },
  protected_paths: [],
};

const GIT_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: devNull,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@citadel.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@citadel.invalid',
};

function execute(command, args, options) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
  });
}

async function must(command, args, options) {
  const result = await execute(command, args, options);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.code}): ${result.stderr}`);
  return result;
}

const git = (cwd, args) =>
  new Promise((resolve, reject) =>
    execFile('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }, (error, stdout, stderr) => (error ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim()))),
  );

/** The 4 `npm ci` by hand, each in a fresh checkout; only the npm processes are timed. */
async function measureByHand(work, repo, cache, round) {
  const dir = path.join(work, `hand-${round}`);
  let seconds = 0;
  for (let b = 0; b < BRANCHES; b += 1) {
    const checkout = path.join(dir, `b${b}`);
    await git(repo, ['worktree', 'add', '--detach', '-q', checkout, 'HEAD']);
    seconds += (await must('npm', NPM_CI, { cwd: checkout, env: { ...process.env, npm_config_cache: cache } })).seconds;
  }
  rmSync(dir, { recursive: true, force: true });
  await git(repo, ['worktree', 'prune']);
  return seconds;
}

/** One `fork start`; the setup phase as its journal records it. */
async function measureCitadel(work, repo, cache, bin, round) {
  const root = path.join(work, `root-${round}`);
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, CITADEL_HOME: root, CITADEL_ISSUER: 'bench-setup', CITADEL_KEYSTORE: 'file', CODEX_HOME: path.join(work, 'codex-home'), npm_config_cache: cache, XDG_CACHE_HOME: path.join(work, 'xdg-cache') };
  const started = await execute(process.execPath, [CLI, 'fork', 'start', 'bench', '--repo', repo, '--executors', path.join(work, 'executors.json'), '--workflow', path.join(work, 'workflow.json'), '--json'], { cwd: work, env });
  const doc = JSON.parse(started.stdout || '{}');
  if (started.code !== 0 || doc.branches?.filter((b) => b.state === 'passed').length !== BRANCHES) {
    throw new Error(`citadel fork start did not pass all ${BRANCHES} branches (exit ${started.code}):\nstdout: ${started.stdout}\nstderr: ${started.stderr}`);
  }
  const journal = readFileSync(path.join(root, 'forks', doc.fork_id, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const setup = journal.filter((entry) => entry.effect === 'setup.run');
  const intents = setup.filter((e) => e.phase === 'intent').map((e) => Date.parse(e.at));
  const results = setup.filter((e) => e.phase === 'result' && e.outcome === 'done').map((e) => Date.parse(e.at));
  if (intents.length !== BRANCHES || results.length !== BRANCHES) throw new Error(`the journal shows ${intents.length} setup intents and ${results.length} results`);
  // Each contained `npm ci` as setup timed it, for the log: what the parallel run saves over serial steps.
  const stepSeconds = doc.branches.reduce((sum, b) => sum + readJson(path.join(root, 'forks', doc.fork_id, 'branches', b.branch_id, 'attempt-1', 'setup.json')).steps[0].duration_ms / 1000, 0);
  // Citadel's checkouts are removed between rounds (the hand side's are), so neither side pays for the other's writeback.
  await must(process.execPath, [CLI, 'fork', 'clean', doc.fork_id, '--json'], { cwd: work, env }).catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
  return { seconds: (Math.max(...results) - Math.min(...intents)) / 1000, stepSeconds };
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function run({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  for (const file of [CLI, SIMULATOR]) if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  const rounds = Number(process.env.CITADEL_BENCH_ROUNDS ?? 3);
  const work = mkdtempSync(path.join(tmpdir(), 'citadel-bench-setup-'));
  try {
    const repo = path.join(work, 'repo');
    const cache = path.join(work, 'npm-cache');
    const bin = path.join(work, 'bin');
    mkdirSync(repo);
    mkdirSync(path.join(work, 'codex-home'));
    writeFileSync(path.join(repo, 'package.json'), `${JSON.stringify(PACKAGE_JSON, null, 2)}\n`);
    writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n');
    // The lock and the warm cache: the one time the registry is reached.
    await must('npm', ['install', '--no-audit', '--no-fund'], { cwd: repo, env: { ...process.env, npm_config_cache: cache } });
    rmSync(path.join(repo, 'node_modules'), { recursive: true, force: true });
    await git(repo, ['init', '-q', '-b', 'main']);
    await git(repo, ['add', '-A']);
    await git(repo, ['commit', '-q', '-m', 'bench project']);
    writeFileSync(path.join(work, 'executors.json'), JSON.stringify({ schema_version: 1, executors: PROFILES }));
    writeFileSync(path.join(work, 'workflow.json'), JSON.stringify(WORKFLOW));
    const { installSimulatedRuntimes } = await import(pathToFileURL(SIMULATOR).href);
    await installSimulatedRuntimes(bin, { outcome: 'success' }, process.execPath, SIMULATOR);

    const citadel = [];
    const steps = [];
    const hand = [];
    for (let round = 0; round < rounds; round += 1) {
      const sides = round % 2 === 0 ? ['citadel', 'hand'] : ['hand', 'citadel'];
      for (const side of sides) {
        if (side === 'citadel') {
          const measured = await measureCitadel(work, repo, cache, bin, round);
          citadel.push(measured.seconds);
          steps.push(measured.stepSeconds);
        }
        else hand.push(await measureByHand(work, repo, cache, round));
      }
      log(`  ${name}: round ${round + 1}: citadel setup ${citadel.at(-1).toFixed(2)} s (its ${BRANCHES} contained npm ci side by side, ${steps.at(-1).toFixed(2)} s summed), npm ci x${BRANCHES} by hand ${hand.at(-1).toFixed(2)} s`);
    }
    const ratio = median(citadel) / median(hand);
    return {
      name,
      measurements: [
        { label: `citadel setup of ${BRANCHES} worktrees`, seconds: median(citadel) },
        { label: `npm ci x${BRANCHES} by hand`, seconds: median(hand) },
      ],
      ratio,
      target: { op: '<=', value: TARGET_RATIO },
      ok: ratio <= TARGET_RATIO,
    };
  } finally {
    if (process.env.CITADEL_BENCH_KEEP === '1') log(`  ${name}: kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}
