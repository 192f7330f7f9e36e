// Benchmark: `citadel fork start` with 4 branches against bare `git worktree add` of 4 worktrees.
//
// Issue target: on a generated repository of 20,000 files, a full `citadel fork start` (create the
// fork, 4 worktrees, launch 4 simulated runtimes that exit at once, wait, collect: containment
// recheck, result commit, diff, builtin verifier, signed receipts) takes at most 1.25x the time of
// plain `git worktree add` of the same 4 worktrees. Checkout of 4 x 20,000 files is the floor any
// fork engine pays; the ratio is Citadel's overhead on top of it.
//
// The Citadel side is the built CLI (out/cli/citadel.mjs) run as a child process under plain Node,
// so the measurement includes process start-up, the detached supervisors and every git process it
// spawns, exactly as an operator sees it. Both sides run git with the same hermetic settings
// Citadel uses (no global/system config, no hooks), and the two measurements alternate, in
// alternating order, with fresh worktree directories each round; the medians are compared.
//
// What dominates (CITADEL_BENCH_PROFILE=1): the 4 branch-repository checkouts, side by side, cost
// about what `worktree add` costs. On top: CLI start-up and fork creation; the launches, one at a
// time in branch order (journal order), each handed to a supervisor started in standby during the
// checkouts, so Node's start-up of the supervisors is not serialized; the collections, side by side
// (recheck, result commit, diff, verifiers, receipts, each in its own repository), then the
// deliveries into the operator's repository, one at a time. The CLI's own cost is mostly spawning
// git (~170 processes: each spawn of this large process costs milliseconds of its main thread).
//
// Bench-only settings: CITADEL_KEYSTORE=file (the OS keychain is not needed to measure the engine
// and may be absent on a CI box; the file store does the same Ed25519 signing), a temp CITADEL_HOME
// and CODEX_HOME, and simulated `claude`/`codex` first on PATH.
//
// Environment knobs (for quick local runs; the issue's target is defined at the defaults):
//   CITADEL_BENCH_ROUNDS   rounds per side (default 3)
//   CITADEL_BENCH_FILES    files in the generated repository (default 20000)
//   CITADEL_BENCH_PROFILE  1: after the measured rounds, one extra Citadel run with a `git` shim
//                          on PATH that logs each git command's wall time, and --cpu-prof
//   CITADEL_BENCH_KEEP     1: keep the temp directory (its path is printed)

import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = path.join(REPO_ROOT, 'out', 'cli', 'citadel.mjs');
const SIMULATOR = path.join(REPO_ROOT, 'out', 'cli', 'simulated-runtime.mjs');

export const name = 'fork-start-vs-worktree-add';
const TARGET_RATIO = 1.25;
const BRANCHES = 4;

const PROFILES = [
  { profile_id: 'claude-a', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
  { profile_id: 'claude-b', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: { permission_mode: 'dontAsk' } },
  { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
  { profile_id: 'codex-b', runtime: 'codex', model: 'gpt-5.1-codex', local_provider: null, adapter_options: { sandbox: 'workspace-write' } },
];

// The same hermetic git Citadel runs (main/git/run.ts): no user or system config, no hooks.
const GIT_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  LC_ALL: 'C',
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: devNull,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@citadel.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@citadel.invalid',
};
const GIT_CONFIG = ['-c', `core.hooksPath=${devNull}`, '-c', 'core.fsmonitor=false'];

function git(cwd, args, input) {
  return new Promise((resolve, reject) => {
    const child = execFile('git', [...GIT_CONFIG, ...args], { cwd, env: GIT_ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

/** Runs a command to completion; resolves with exit code, output and wall time in seconds. */
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

/** One commit of `count` small files spread over 20 x 20 directories, written with git fast-import (seconds, not minutes). */
async function generateRepository(repo, count) {
  mkdirSync(repo, { recursive: true });
  await git(repo, ['init', '-q', '-b', 'main']);
  const chunks = [];
  const entries = [];
  for (let i = 0; i < count; i += 1) {
    const content = `// generated file ${i}\nexport const value${i} = ${i};\n`;
    chunks.push(`blob\nmark :${i + 1}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
    const dir = `pkg-${String(i % 20).padStart(2, '0')}/mod-${String(Math.floor(i / 20) % 20).padStart(2, '0')}`;
    entries.push(`M 100644 :${i + 1} ${dir}/file-${String(i).padStart(5, '0')}.ts\n`);
  }
  const message = 'generated repository for the fork-start benchmark\n';
  const when = `${Math.floor(Date.now() / 1000)} +0000`;
  chunks.push(
    `commit refs/heads/main\nauthor bench <bench@citadel.invalid> ${when}\ncommitter bench <bench@citadel.invalid> ${when}\n`,
    `data ${Buffer.byteLength(message)}\n${message}`,
    ...entries,
    '\n',
  );
  await git(repo, ['fast-import', '--quiet'], chunks.join(''));
  await git(repo, ['reset', '--hard', '-q']);
  return (await git(repo, ['rev-parse', 'HEAD'])).trim();
}

/** Removes every linked worktree and every branch but main, so each round starts from the same repository. */
async function resetRepository(repo) {
  const listing = await git(repo, ['worktree', 'list', '--porcelain']);
  const worktrees = listing
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .slice(1); // the first entry is the main worktree
  for (const dir of worktrees) await git(repo, ['worktree', 'remove', '--force', dir]);
  await git(repo, ['worktree', 'prune']);
  const branches = (await git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/']))
    .split('\n')
    .filter((b) => b !== '' && b !== 'main');
  if (branches.length > 0) await git(repo, ['branch', '-D', ...branches]);
}

async function measureWorktreeAdd(repo, base, round, dir) {
  const started = process.hrtime.bigint();
  for (let b = 0; b < BRANCHES; b += 1) {
    await git(repo, ['worktree', 'add', '--no-track', '-q', '-b', `bench/r${round}/b${b}`, path.join(dir, `b${b}`), base]);
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function citadelEnv(work, root, bin) {
  return {
    ...process.env,
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    CITADEL_HOME: root,
    CITADEL_ISSUER: 'bench-fork-start',
    CITADEL_KEYSTORE: 'file',
    CODEX_HOME: path.join(work, 'codex-home'),
  };
}

async function measureCitadel(work, repo, root, bin, nodeArgs = []) {
  const run = await timed(process.execPath, [...nodeArgs, CLI, 'fork', 'start', 'bench', '--repo', repo, '--executors', path.join(work, 'executors.json'), '--json'], {
    cwd: work,
    env: citadelEnv(work, root, bin),
  });
  let doc = null;
  try {
    doc = JSON.parse(run.stdout);
  } catch {
    // reported below
  }
  const passed = doc?.branches?.filter((b) => b.state === 'passed').length ?? 0;
  if (run.code !== 0 || doc?.branches?.length !== BRANCHES || passed !== BRANCHES) {
    throw new Error(`citadel fork start did not pass all ${BRANCHES} branches (exit ${run.code}):\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  }
  return run.seconds;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function run({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  for (const file of [CLI, SIMULATOR]) if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  const rounds = Number(process.env.CITADEL_BENCH_ROUNDS ?? 3);
  const files = Number(process.env.CITADEL_BENCH_FILES ?? 20000);
  if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(files) || files < 1) throw new Error('CITADEL_BENCH_ROUNDS and CITADEL_BENCH_FILES must be whole numbers >= 1');
  const work = mkdtempSync(path.join(tmpdir(), 'citadel-bench-fork-start-'));
  try {
    const repo = path.join(work, 'repo');
    const bin = path.join(work, 'bin');
    mkdirSync(path.join(work, 'codex-home'), { recursive: true });
    writeFileSync(path.join(work, 'executors.json'), `${JSON.stringify({ schema_version: 1, executors: PROFILES }, null, 2)}\n`);
    const { installSimulatedRuntimes } = await import(pathToFileURL(SIMULATOR).href);
    await installSimulatedRuntimes(bin, { outcome: 'success' }, process.execPath, SIMULATOR);

    let started = process.hrtime.bigint();
    const base = await generateRepository(repo, files);
    log(`  ${name}: generated ${files} files in ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s (${work})`);

    // Loading the CLI bundle and its dependencies once warms the page cache for Node's side (a full
    // Citadel warm-up run would cost half a minute on a slow disk for nothing more).
    const warm = await timed(process.execPath, [CLI, '--help'], { cwd: work, env: citadelEnv(work, path.join(work, 'root-warm'), bin) });
    if (warm.code !== 0) throw new Error(`citadel --help failed (exit ${warm.code}): ${warm.stderr}`);

    // Every measured run must start from the same state of the file system: right after 4 x 20,000
    // files were removed (on this kind of disk a fresh repository checks out faster than one whose
    // worktrees were just deleted). One throwaway add and removal of 4 worktrees puts round 1 there too.
    await measureWorktreeAdd(repo, base, 'warm', path.join(work, 'git-warm'));
    await resetRepository(repo);
    await timed('sync', [], {});

    const gitTimes = [];
    const citadelTimes = [];
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['git', 'citadel'] : ['citadel', 'git'];
      let resetSeconds = 0;
      for (const side of order) {
        if (side === 'git') gitTimes.push(await measureWorktreeAdd(repo, base, round, path.join(work, `git-r${round}`)));
        else citadelTimes.push(await measureCitadel(work, repo, path.join(work, `root-r${round}`), bin));
        const resetStarted = process.hrtime.bigint();
        // Each side removes what it checked out, so the next one starts from the same state: Citadel's
        // worktrees live in its own branch repositories under its root, not in the repository's list.
        if (side === 'citadel') rmSync(path.join(work, `root-r${round}`), { recursive: true, force: true });
        await resetRepository(repo);
        // Flushed before the next side is timed, so that neither pays for the writeback of the other's
        // 80,000 removed files (on this kind of VM disk the floor still varies between rounds).
        await timed('sync', [], {});
        resetSeconds += Number(process.hrtime.bigint() - resetStarted) / 1e9;
      }
      const [g, c] = [gitTimes.at(-1), citadelTimes.at(-1)];
      log(
        `  ${name}: round ${round + 1}/${rounds} (${order.join(' first, ')} second): git worktree add x${BRANCHES} ${g.toFixed(2)} s, citadel ${c.toFixed(2)} s, ratio ${(c / g).toFixed(2)}; cleanup ${resetSeconds.toFixed(1)} s`,
      );
    }

    if (process.env.CITADEL_BENCH_PROFILE === '1') {
      started = process.hrtime.bigint();
      await profileCitadel(work, repo, bin, log);
      log(`  ${name}: profile run took ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s`);
    }

    const citadel = median(citadelTimes);
    const bare = median(gitTimes);
    const ratio = citadel / bare;
    return {
      name,
      measurements: [
        { label: 'citadel', seconds: citadel },
        { label: `git worktree add x${BRANCHES}`, seconds: bare },
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

/**
 * One more Citadel run, not measured: a `git` shim first on PATH (Citadel passes PATH on to git,
 * so the shim sees every git process the CLI spawns) logs each git command's argv and wall time,
 * the CLI's progress lines on stderr are timestamped, and V8 writes a CPU profile of the CLI
 * process. Prints a timeline of the run, git time by subcommand, and the CLI's hottest functions.
 */
async function profileCitadel(work, repo, bin, log) {
  const realGit = (await timed('sh', ['-c', 'command -v git'], { env: process.env })).stdout.trim();
  const shimDir = path.join(work, 'git-shim');
  const gitLog = path.join(work, 'git-calls.log');
  mkdirSync(shimDir, { recursive: true });
  writeFileSync(
    path.join(shimDir, 'git'),
    [
      '#!/bin/sh',
      's=$(date +%s%N)',
      `${JSON.stringify(realGit)} "$@"`,
      'rc=$?',
      `printf '%s %s %s\\n' "$s" "$(date +%s%N)" "$*" >> ${JSON.stringify(gitLog)}`,
      'exit $rc',
      '',
    ].join('\n'),
  );
  chmodSync(path.join(shimDir, 'git'), 0o755);
  const profDir = path.join(work, 'cpu-prof');
  const root = path.join(work, 'root-profile');
  const env = citadelEnv(work, root, `${bin}${path.delimiter}${shimDir}`);
  const nowMs = () => performance.timeOrigin + performance.now();

  const t0 = nowMs();
  const events = [];
  const code = await new Promise((resolve, reject) => {
    const args = ['--cpu-prof', `--cpu-prof-dir=${profDir}`, CLI, 'fork', 'start', 'bench', '--repo', repo, '--executors', path.join(work, 'executors.json')];
    const child = spawn(process.execPath, args, { cwd: work, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let pending = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) events.push({ at: nowMs() - t0, line });
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
  const total = (nowMs() - t0) / 1000;
  const resetStarted = nowMs();
  await resetRepository(repo);
  log(`  profile: cleanup after the profiled run ${((nowMs() - resetStarted) / 1000).toFixed(1)} s`);
  if (code !== 0) throw new Error(`profiled citadel fork start exited ${code}: ${events.map((e) => e.line).join(' | ')}`);

  const calls = readFileSync(gitLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [s, e, ...args] = line.split(' ');
      const words = args.filter((a, i) => !a.startsWith('-') && args[i - 1] !== '-c');
      const sub = words[0] === 'worktree' ? `worktree ${words[1]}` : (words[0] ?? '?');
      return { start: Number(s) / 1e6 - t0, end: Number(e) / 1e6 - t0, sub };
    });
  log(`  profile: citadel ${total.toFixed(2)} s (git shim + --cpu-prof, not a measurement); timeline in s since spawn:`);
  const adds = calls.filter((c) => c.sub === 'worktree add');
  const gitBetween = (from, to) => calls.filter((c) => c.start >= from && c.end <= to);
  let previous = 0;
  for (const event of events) {
    const inGap = gitBetween(previous, event.at);
    const gitSeconds = inGap.reduce((sum, c) => sum + c.end - c.start, 0) / 1000;
    log(`    +${(event.at / 1000).toFixed(2).padStart(6)}  ${event.line.padEnd(44)} (${inGap.length} git, ${gitSeconds.toFixed(2)} s since previous line)`);
    previous = event.at;
  }
  if (adds.length > 0) {
    log(`    git worktree add: ${adds.map((c) => `${((c.end - c.start) / 1000).toFixed(2)} s`).join(', ')}; first starts at +${(adds[0].start / 1000).toFixed(2)} s`);
  }
  const bySub = new Map();
  for (const call of calls) {
    const entry = bySub.get(call.sub) ?? { count: 0, ms: 0 };
    entry.count += 1;
    entry.ms += call.end - call.start;
    bySub.set(call.sub, entry);
  }
  log(
    `    git by subcommand (${calls.length} processes): ${[...bySub]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 10)
      .map(([sub, e]) => `${sub} x${e.count} ${(e.ms / 1000).toFixed(2)} s`)
      .join(', ')}`,
  );
  for (const file of readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile'))) {
    log(`    cpu profile ${path.join(profDir, file)}: ${topSelfTime(JSON.parse(readFileSync(path.join(profDir, file), 'utf8')))}`);
  }
}

/** The CLI's top self-time functions in a .cpuprofile (idle and GC included, as V8 reports them). */
function topSelfTime(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i += 1) {
    const node = byId.get(profile.samples[i]);
    const frame = node.callFrame;
    const key = `${frame.functionName || '(anonymous)'} ${path.basename(frame.url || '')}:${frame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = (profile.endTime - profile.startTime) / 1e6;
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return `total ${total.toFixed(2)} s; top self time: ${top.map(([key, us]) => `${key} ${(us / 1e6).toFixed(2)} s`).join('; ')}`;
}
