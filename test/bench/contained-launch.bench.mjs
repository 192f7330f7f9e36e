// Benchmark: `citadel fork start` of 4 branches contained by the OS sandbox (bubblewrap) against
// the same 4 branches with `--containment runtime-only`.
//
// Issue 11 target: containment costs at most 1.15x. Both sides are the built CLI run as a child
// process, with 4 simulated runtimes (2 claude, 2 codex profiles) that exit at once, on a small
// repository, so what differs is exactly what containment adds: the sandbox probe, the bwrap
// launch of each runtime with its generated /etc files, the egress bridge (host side in the
// supervisor, inner side in the sandbox) and the per-attempt runtime home. The two sides alternate,
// in alternating order, each round in a fresh fork root; the medians are compared.
//
// Bench-only settings as in fork-start.bench.mjs: CITADEL_KEYSTORE=file, a temp CITADEL_HOME and
// CODEX_HOME, simulated `claude`/`codex` first on PATH.
//
// Environment knobs: CITADEL_BENCH_ROUNDS (rounds per side, default 5), CITADEL_BENCH_KEEP=1 (keep
// the temp directory).

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = path.join(REPO_ROOT, 'out', 'cli', 'citadel.mjs');
const SIMULATOR = path.join(REPO_ROOT, 'out', 'cli', 'simulated-runtime.mjs');

export const name = 'contained-launch-vs-uncontained';
const TARGET_RATIO = 1.15;
const BRANCHES = 4;

const PROFILES = [
  { profile_id: 'claude-a', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
  { profile_id: 'claude-b', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: {} },
  { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
  { profile_id: 'codex-b', runtime: 'codex', model: 'gpt-5.1-codex', local_provider: null, adapter_options: {} },
];

function timed(command, args, options) {
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

function makeRepository(repo) {
  mkdirSync(path.join(repo, 'src'), { recursive: true });
  writeFileSync(path.join(repo, 'src', 'sum.js'), 'export function sum(a, b) {\n  return a + b;\n}\n');
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: devNull, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@citadel.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@citadel.invalid' };
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['commit', '-q', '-m', 'bench']]) execFileSync('git', args, { cwd: repo, env });
}

/** One `fork start` in a fresh fork root; every branch must pass and be contained as asked. */
async function measure(work, repo, bin, round, containment) {
  const root = path.join(work, `root-${containment}-${round}`);
  const args = [CLI, 'fork', 'start', 'bench', '--repo', repo, '--executors', path.join(work, 'executors.json'), '--containment', containment, '--json'];
  const run = await timed(process.execPath, args, {
    cwd: work,
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, CITADEL_HOME: root, CITADEL_ISSUER: 'bench-contained-launch', CITADEL_KEYSTORE: 'file', CODEX_HOME: path.join(work, 'codex-home') },
  });
  let doc = null;
  try {
    doc = JSON.parse(run.stdout);
  } catch {
    // reported below
  }
  const passed = doc?.branches?.filter((b) => b.state === 'passed').length ?? 0;
  if (run.code !== 0 || passed !== BRANCHES) {
    throw new Error(`citadel fork start --containment ${containment} did not pass all ${BRANCHES} branches (exit ${run.code}):\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  }
  // A side that silently ran the other way would measure nothing.
  const contract = JSON.parse(readFileSync(path.join(root, 'forks', doc.fork_id, 'contract.json'), 'utf8'));
  const mode = contract.containment?.mode ?? 'runtime-only';
  if (mode !== (containment === 'auto' ? 'contained' : 'runtime-only')) throw new Error(`--containment ${containment} ran ${mode}`);
  return run.seconds;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function run({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  for (const file of [CLI, SIMULATOR]) if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  const rounds = Number(process.env.CITADEL_BENCH_ROUNDS ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('CITADEL_BENCH_ROUNDS must be a whole number >= 1');
  const work = mkdtempSync(path.join(tmpdir(), 'citadel-bench-contained-'));
  try {
    const repo = path.join(work, 'repo');
    const bin = path.join(work, 'bin');
    mkdirSync(path.join(work, 'codex-home'), { recursive: true });
    makeRepository(repo);
    writeFileSync(path.join(work, 'executors.json'), `${JSON.stringify({ schema_version: 1, executors: PROFILES }, null, 2)}\n`);
    const { installSimulatedRuntimes } = await import(pathToFileURL(SIMULATOR).href);
    await installSimulatedRuntimes(bin, { outcome: 'success' }, process.execPath, SIMULATOR);

    // One unmeasured run of each side warms the page cache (Node, git, bwrap).
    await measure(work, repo, bin, 'warm', 'runtime-only');
    await measure(work, repo, bin, 'warm', 'auto');

    const times = { auto: [], 'runtime-only': [] };
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['runtime-only', 'auto'] : ['auto', 'runtime-only'];
      for (const side of order) times[side].push(await measure(work, repo, bin, round, side));
      log(`  ${name}: round ${round + 1}/${rounds}: contained ${times.auto.at(-1).toFixed(2)} s, runtime-only ${times['runtime-only'].at(-1).toFixed(2)} s`);
    }
    const contained = median(times.auto);
    const uncontained = median(times['runtime-only']);
    const ratio = contained / uncontained;
    return {
      name,
      measurements: [
        { label: `contained x${BRANCHES}`, seconds: contained },
        { label: `runtime-only x${BRANCHES}`, seconds: uncontained },
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
