/**
 * Crash recovery of `citadel fork start` (decisions D11, spec "Recovery and effects"): the real CLI
 * runs in a child process that SIGKILLs itself at one named effect boundary (CITADEL_CRASH_AT,
 * main/store/crash-points.ts), then `citadel fork resume` must converge: repeatable effects
 * retried, completed ones never repeated, an ambiguous launch blocked (its process stopped), no
 * torn file; a crash during creation leaves no fork at all.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus } from '../../../main/runtimes/process-control/read-status';
import { isRuntimeAlive, isSupervisorAlive } from '../../../main/runtimes/process-control/run-liveness';
import { EFFECTS, JournalRecordSchema, type JournalRecord } from '../../../main/store/journal';
import { ForkRecordSchema, ForkStatusSchema } from '../../../shared/fork/fork-record';
import { executionState } from '../../../shared/fork/fork-state';
import { branch, FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM, type ForkStatusDoc } from '../../support/fork-harness';
import { CLI_PATH, REPO_ROOT } from '../../support/run-cli';

type BranchId = 'branch-claude' | 'branch-codex';
const BRANCH_IDS: readonly BranchId[] = ['branch-claude', 'branch-codex'];

/** Where a crash at a boundary must end up after `fork resume`. */
type Convergence =
  /** Before the staging folder is renamed into place: no fork, nothing in the target repository. */
  | { kind: 'no-fork' }
  /** Every effect completes once: claude passes, codex fails its verifier, the fork is ready. */
  | { kind: 'ready' }
  /**
   * A launch intent without a result: that branch is blocked (launch_in_doubt) and never
   * relaunched; `spawned` says whether its runtime had been started before the crash. The other
   * branch completes, which leaves one comparable branch: executionState gives `blocked`.
   */
  | { kind: 'launch-in-doubt'; branch: BranchId; spawned: boolean; fork: 'blocked' };

interface Boundary {
  readonly name: string;
  /** The n-th time the boundary is reached (CITADEL_CRASH_AT_HIT); 1 when omitted. */
  readonly hit?: number;
  readonly expect: Convergence;
  /**
   * atomic-write only: the temp file left under `<root>/forks/`, proving which write the hit fell
   * in. Hit numbers shift when writes are added; this makes such a shift fail loudly.
   */
  readonly temp?: RegExp;
  /** This runtime is still running when resume comes, so resume itself must stop it. */
  readonly slow?: BranchId;
  /**
   * This runtime ends LATE_MS after the other: collections run side by side, so only when the other
   * is collected alone is the n-th write of a hit the same write in every run.
   */
  readonly late?: BranchId;
}

const F = 'fork-[0-9a-z]{26}';
/** A temp file beside one of a branch attempt's own files, or the fork record a sibling was updating (write-file-atomic's naming). */
const CHECKPOINT_TEMP = new RegExp(`^${F}/(branches/branch-[a-z]+/attempt-1/[^/]+|fork\\.json)\\.\\d+$`);
const READY: Convergence = { kind: 'ready' };
const NO_FORK: Convergence = { kind: 'no-fork' };
const inDoubt = (b: BranchId, spawned: boolean): Convergence => ({ kind: 'launch-in-doubt', branch: b, spawned, fork: 'blocked' });

/**
 * Every crash boundary `fork start` reaches. The order of a 2-branch start is: fork.create (in
 * staging), repository.base (the fork's base object store), worktree.create claude then codex (each
 * branch's own repository), the containment snapshots, runtime.launch claude then codex (each
 * followed by a fork.json rewrite), then receipt.collect and result.deliver per branch as each ends.
 */
const BOUNDARIES: readonly Boundary[] = [
  { name: 'fork.create:after-intent', expect: NO_FORK },
  { name: 'fork.create:before-result', expect: NO_FORK },
  { name: 'fork.create:before-publish', expect: NO_FORK },
  { name: 'atomic-write:temp-created', hit: 1, temp: new RegExp(`^\\.creating-${F}/objective\\.txt\\.\\d+$`), expect: NO_FORK },

  { name: 'repository.base:after-intent', expect: READY },
  // The base store is in place but no result was recorded: the retry must accept it.
  { name: 'repository.base:before-result', expect: READY },
  { name: 'worktree.create:after-intent', hit: 1, expect: READY },
  { name: 'worktree.create:after-intent', hit: 2, expect: READY },
  // The worktree exists but no result was recorded: the retry must accept it, not conflict.
  { name: 'worktree.create:before-result', hit: 1, expect: READY },
  { name: 'worktree.create:before-result', hit: 2, expect: READY },
  { name: 'atomic-write:temp-created', hit: 6, temp: new RegExp(`^${F}/containment-before\\.json\\.\\d+$`), expect: READY },

  { name: 'runtime.launch:after-intent', hit: 1, expect: inDoubt('branch-claude', false) },
  { name: 'runtime.launch:after-intent', hit: 2, expect: inDoubt('branch-codex', false) },
  // The supervisor's launch spec, written after the launch intent: nothing was spawned, yet in doubt.
  { name: 'atomic-write:temp-created', hit: 9, temp: new RegExp(`^${F}/branches/branch-claude/attempt-1/run\\.launch\\.json\\.\\d+$`), expect: inDoubt('branch-claude', false) },
  { name: 'runtime.launch:after-spawn', hit: 1, slow: 'branch-claude', expect: inDoubt('branch-claude', true) },
  { name: 'runtime.launch:after-spawn', hit: 2, slow: 'branch-codex', expect: inDoubt('branch-codex', true) },
  // The runtime ran to its end on its own: its late output must not turn into a result.
  { name: 'runtime.launch:before-result', hit: 1, expect: inDoubt('branch-claude', true) },
  { name: 'runtime.launch:before-result', hit: 2, expect: inDoubt('branch-codex', true) },
  // The snapshot rewrite after claude's launch: the journal says launched, fork.json still pending.
  { name: 'atomic-write:temp-created', hit: 10, temp: new RegExp(`^${F}/fork\\.json\\.\\d+$`), expect: READY },

  { name: 'receipt.collect:after-intent', hit: 1, expect: READY },
  { name: 'receipt.collect:after-containment', expect: READY },
  { name: 'receipt.collect:after-commit', expect: READY },
  { name: 'receipt.collect:after-commit', hit: 2, expect: READY },
  { name: 'receipt.collect:after-verification-tree', expect: READY },
  { name: 'receipt.collect:after-verifier', expect: READY },
  { name: 'receipt.collect:after-receipt', expect: READY },
  { name: 'receipt.collect:before-result', hit: 1, expect: READY },
  { name: 'receipt.collect:before-result', hit: 2, expect: READY },
  // Citadel's result commit is made, its checkpoint is not: the retry finds nothing to commit.
  { name: 'atomic-write:temp-created', hit: 16, late: 'branch-codex', temp: new RegExp(`^${F}/branches/branch-claude/attempt-1/result-commit\\.json\\.\\d+$`), expect: READY },
  // The first collection is journaled done and delivered, fork.json not yet rewritten.
  { name: 'atomic-write:temp-created', hit: 23, late: 'branch-codex', temp: new RegExp(`^${F}/fork\\.json\\.\\d+$`), expect: READY },
  // Collected, the delivery intent written: the retry fetches and creates the branch (or finds it made).
  { name: 'result.deliver:after-intent', hit: 1, expect: READY },
  { name: 'result.deliver:after-intent', hit: 2, expect: READY },
  // The branch was created in the operator's repository, the result not journaled: the retry finds it there.
  { name: 'result.deliver:before-result', hit: 1, expect: READY },
  { name: 'result.deliver:before-result', hit: 2, expect: READY },
];

/** The outcome of an uninterrupted run: claude fixes the bug, codex makes a wrong fix. */
const NORMAL: Record<BranchId, { state: string; failure_code: string | null }> = {
  'branch-claude': { state: 'passed', failure_code: null },
  'branch-codex': { state: 'failed', failure_code: 'VERIFIER_FAILED' },
};
const SLOW_MS = 60_000;
/** Far longer than one collection takes on a loaded machine. */
const LATE_MS = 20_000;
/** write-file-atomic's temp files: `<target>.<decimal hash>`. */
const TEMP_FILE = /\.\d+$/;

// One scratch root for the whole file: test/support/temp-dir.ts removes every directory after
// each test, which would pull them from under tests still running concurrently.
let scratch = '';
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'citadel-crash-'));
});
// 36 forks' files: on a loaded disk their removal alone can outlast the default hook timeout.
afterAll(() => rmSync(scratch, { recursive: true, force: true }), 120_000);

/** Crash boundaries of effects a plain start does not reach, and the test that crashes there. */
const CRASH_TESTED_ELSEWHERE: Readonly<Record<string, string>> = { 'setup.run:after-steps': 'test/integration/setup/npm-setup.test.ts' };

describe.concurrent('fork start crash recovery', () => {
  it('covers every crash boundary in main/ that fork start reaches, and names only real ones', async () => {
    const { literal, effectSuffixes } = crashPointsInSource();
    const h = await countingHarness();
    const doc = parseDoc(await h.cli(startArgs(h)));
    expectNormal(h, doc);
    // The journaled effects of a complete start are the effects whose boundaries it reaches.
    const reached = new Set<string>(journalOf(h, doc.fork_id).map((r) => r.effect));
    expect([...reached].sort()).toEqual(['fork.create', 'receipt.collect', 'repository.base', 'result.deliver', 'runtime.launch', 'worktree.create']);

    const covered = new Set(BOUNDARIES.map((b) => b.name));
    // A boundary of an effect a plain start never reaches (setup runs only for a workflow with setup
    // steps) is crash-tested by that feature's own test, which must name it.
    const effectOf = (name: string): string => name.split(':')[0] ?? '';
    const unreached = literal.filter((name) => Object.hasOwn(EFFECTS, effectOf(name)) && !reached.has(effectOf(name)));
    for (const name of unreached) {
      const test = CRASH_TESTED_ELSEWHERE[name];
      expect(test, `${name} is crash-tested by no test`).toBeDefined();
      expect(readFileSync(path.join(REPO_ROOT, test ?? ''), 'utf8'), `${test} does not crash at ${name}`).toContain(`CITADEL_CRASH_AT: '${name}'`);
    }
    const required = [...literal.filter((name) => !unreached.includes(name)), ...[...reached].flatMap((effect) => effectSuffixes.map((suffix) => `${effect}:${suffix}`))];
    expect(required.filter((name) => !covered.has(name)), 'crash boundaries without a crash test').toEqual([]);
    const existing = new Set([...literal, ...Object.keys(EFFECTS).flatMap((effect) => effectSuffixes.map((suffix) => `${effect}:${suffix}`))]);
    expect([...covered].filter((name) => !existing.has(name)), 'table entries naming no boundary').toEqual([]);
  });

  for (const boundary of BOUNDARIES) {
    it(`${boundary.name} #${boundary.hit ?? 1} converges (${boundary.expect.kind})`, { timeout: 150_000 }, async () => {
      const h = await countingHarness(boundary.slow, boundary.late);
      const crash = await startUntilKilled(h, boundary);
      expect(crash.signal, `fork start was not killed at ${boundary.name}:\n${crash.stderr}`).toBe('SIGKILL');
      expect(crash.stdout).toBe('');
      const lasting = await lastingTempFilesUnder(h.forksDir);
      const targeted = boundary.temp === undefined ? [] : lasting.filter((f) => boundary.temp?.test(f));
      if (boundary.temp !== undefined) expect(targeted.length, `no lasting temp file matches ${String(boundary.temp)}: ${lasting.join(', ')}`).toBeGreaterThan(0);
      // Collections run side by side: a crash in one may also cut a sibling's checkpoint or record
      // write short. Only its temp file stays, which nothing reads (the retry redoes that step); nothing else may.
      expect(lasting.filter((f) => !targeted.includes(f) && !CHECKPOINT_TEMP.test(f))).toEqual([]);

      if (boundary.expect.kind === 'no-fork') return expectNoForkThenFreshStart(h);

      const [forkId, ...others] = readdirSync(h.forksDir);
      expect(others).toEqual([]);
      if (forkId === undefined) throw new Error('no fork folder after the crash');
      expectNoTornFile(h.forkDir(forkId));
      const journalAtCrash = readFileSync(journalFile(h, forkId), 'utf8');

      const resume = await h.cli(['fork', 'resume', forkId, '--json']);
      expect(resume.code, resume.stderr).toBe(0);
      const doc = parseDoc(resume);
      expectNoTornFile(h.forkDir(forkId));
      // Recovery only appends: no completed record is rewritten or dropped.
      expect(readFileSync(journalFile(h, forkId), 'utf8').startsWith(journalAtCrash)).toBe(true);
      expect(existsSync(path.join(h.forkDir(forkId), 'fork.lock'))).toBe(false);
      expect(doc.state).toBe(executionState(ForkStatusSchema.parse(doc).branches));

      if (boundary.expect.kind === 'ready') expectNormal(h, doc);
      else await expectBlockedLaunch(h, doc, boundary.expect, boundary.slow !== undefined);

      // Converged means a further resume has nothing left to do.
      const files = (): string[] => ['fork.json', 'journal.jsonl'].map((f) => readFileSync(path.join(h.forkDir(forkId), f), 'utf8'));
      const before = files();
      const again = await h.cli(['fork', 'resume', forkId, '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect(parseDoc(again)).toEqual(doc);
      expect(files()).toEqual(before);
    });
  }
});

class CountingHarness extends ForkHarness {
  /** One line per runtime process ever started: its working directory (the branch worktree). */
  get launchLog(): string {
    return path.join(this.base, 'launches.log');
  }

  get forksDir(): string {
    return path.join(this.root, 'forks');
  }

  /** How many times each branch's runtime was started. */
  launches(): Record<BranchId, number> {
    const lines = existsSync(this.launchLog) ? readFileSync(this.launchLog, 'utf8').split('\n').filter(Boolean) : [];
    return { 'branch-claude': lines.filter((l) => path.basename(l) === 'branch-claude').length, 'branch-codex': lines.filter((l) => path.basename(l) === 'branch-codex').length };
  }
}

/**
 * The harness with claude fixing and codex breaking the sum, each simulated runtime behind a
 * wrapper that logs every start before exec'ing it (same pid, so stop and liveness see the runtime).
 */
async function countingHarness(slow?: BranchId, late?: BranchId): Promise<CountingHarness> {
  const h = new CountingHarness(mkdtempSync(path.join(scratch, 'case-')));
  const delay = (runtime: BranchId): { delay_ms?: number } => (slow === runtime ? { delay_ms: SLOW_MS } : late === runtime ? { delay_ms: LATE_MS } : {});
  const behaviour = (runtime: BranchId, content: string) => ({ edits: [{ path: 'src/sum.js', content }], ...delay(runtime) });
  await h.simulate({ claude: behaviour('branch-claude', FIXED_SUM), codex: behaviour('branch-codex', WRONG_SUM) });
  if ([h.bin, h.launchLog].some((p) => p.includes("'"))) throw new Error(`cannot quote ${h.base} for sh`);
  for (const runtime of ['claude', 'codex']) {
    const simulated = path.join(h.bin, `${runtime}.simulated`);
    // The simulated runtime finds its scenario beside whatever file it was run as: same folder.
    renameSync(path.join(h.bin, runtime), simulated);
    writeFileSync(path.join(h.bin, runtime), `#!/bin/sh\npwd -P >> '${h.launchLog}'\nexec '${simulated}' "$@"\n`);
    chmodSync(path.join(h.bin, runtime), 0o755);
  }
  return h;
}

// runtime-only: the counting wrapper logs each launch to a file outside the worktree, which OS
// containment (test/integration/containment) would deny; crash recovery is the same either way.
const startArgs = (h: ForkHarness): string[] => ['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--containment', 'runtime-only', '--json'];

/** `fork start` with the crash armed; resolves with how the process ended (runCli keeps no signal). */
function startUntilKilled(h: ForkHarness, boundary: Boundary): Promise<{ signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const env = h.env({ CITADEL_CRASH_AT: boundary.name, CITADEL_CRASH_AT_HIT: String(boundary.hit ?? 1) });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...startArgs(h)], { cwd: h.base, env, stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (_code, signal) => resolve({ signal, stdout, stderr }));
  });
}

/** Claude passed and codex failed its verifier, each run once, each with exactly one Citadel commit. */
function expectNormal(h: CountingHarness, doc: ForkStatusDoc): void {
  expect(doc.state, JSON.stringify(doc)).toBe('ready');
  for (const id of BRANCH_IDS) {
    expect(branch(doc, id), id).toMatchObject({ ...NORMAL[id], blocked_reason: null, attempt: 1 });
    expectCollectedOnce(h, doc.fork_id, id);
  }
  expect(h.launches()).toEqual({ 'branch-claude': 1, 'branch-codex': 1 });
  expectJournalConverged(journalOf(h, doc.fork_id), null);
}

async function expectBlockedLaunch(h: CountingHarness, doc: ForkStatusDoc, expected: Extract<Convergence, { kind: 'launch-in-doubt' }>, wasRunning: boolean): Promise<void> {
  const other: BranchId = expected.branch === 'branch-claude' ? 'branch-codex' : 'branch-claude';
  expect(doc.state, JSON.stringify(doc)).toBe(expected.fork);
  expect(branch(doc, expected.branch)).toMatchObject({ state: 'blocked', blocked_reason: 'launch_in_doubt', failure_code: 'RUNTIME_OUTCOME_UNKNOWN', attempt: 1 });
  expect(branch(doc, other)).toMatchObject({ ...NORMAL[other], blocked_reason: null });
  expectCollectedOnce(h, doc.fork_id, other);
  // Never relaunched: started once if the crash came after the spawn, else never.
  expect(h.launches()).toEqual({ [expected.branch]: expected.spawned ? 1 : 0, [other]: 1 });
  expectJournalConverged(journalOf(h, doc.fork_id), `${expected.branch}#1`);

  // Nothing of the doubtful run is evidence: no receipt, no result commit.
  expect(existsSync(h.attemptFile(doc.fork_id, expected.branch, 'execution-receipt.json'))).toBe(false);
  expect(commitsAboveBase(h, doc.fork_id, expected.branch)).toBe(0);
  const statusFile = h.attemptFile(doc.fork_id, expected.branch, 'run.json');
  if (!expected.spawned) return expect(existsSync(statusFile)).toBe(false);
  // Whatever it started is gone, and a run still going at resume was stopped by resume.
  const status = await readStatus(statusFile);
  expect(status).toMatchObject({ phase: 'exited', stopped: wasRunning });
  expect(isSupervisorAlive(status) || isRuntimeAlive(status)).toBe(false);
}

/** The branch's receipt matches its state, and Citadel committed its result exactly once. */
function expectCollectedOnce(h: ForkHarness, forkId: string, id: BranchId): void {
  const envelope = h.readJson<{ receipt: { status: string; failure_code: string | null; result_commit: string | null } }>(h.attemptFile(forkId, id, 'execution-receipt.json'));
  expect(envelope.receipt).toMatchObject({ status: NORMAL[id].state, failure_code: NORMAL[id].failure_code });
  expect(envelope.receipt.result_commit).toBe(h.gitIn(h.repo, 'rev-parse', `citadel/${forkId}/${id}`));
  expect(commitsAboveBase(h, forkId, id)).toBe(1);
}

/** Commits above the base in the branch's own repository (a blocked branch is never delivered to the operator's). */
function commitsAboveBase(h: ForkHarness, forkId: string, id: BranchId): number {
  const gitDir = path.join(h.root, 'repositories', forkId, `${id}.git`);
  return Number(h.gitIn(h.repo, '--git-dir', gitDir, 'rev-list', '--count', `${h.gitIn(h.repo, 'rev-parse', 'main')}..HEAD`));
}

/**
 * Every repeatable effect that was begun has finished (retried if need be), none completed twice,
 * and no launch was attempted twice. `inDoubtLaunch` is the one launch left without a result.
 */
function expectJournalConverged(records: readonly JournalRecord[], inDoubtLaunch: string | null): void {
  const pairs = new Map<string, JournalRecord[]>();
  for (const r of records) pairs.set(`${r.effect} ${r.key}`, [...(pairs.get(`${r.effect} ${r.key}`) ?? []), r]);
  for (const [pair, mine] of pairs) {
    const results = mine.filter((r) => r.phase === 'result');
    expect(results.filter((r) => r.outcome === 'done').length, pair).toBeLessThanOrEqual(1);
    expect(mine[0]?.phase, `${pair} begins without an intent`).toBe('intent');
    if (pair.startsWith('runtime.launch ')) expect(mine.filter((r) => r.phase === 'intent').length, pair).toBe(1);
    expect(results.length, pair).toBe(pair === `runtime.launch ${inDoubtLaunch}` ? 0 : 1);
  }
}

/** A crash during creation: only the staging folder, no fork anywhere, and the next start works. */
async function expectNoForkThenFreshStart(h: CountingHarness): Promise<void> {
  const staged = readdirSync(h.forksDir);
  expect(staged).toEqual([expect.stringMatching(new RegExp(`^\\.creating-${F}$`))]);
  expectNoTornFile(path.join(h.forksDir, staged[0] ?? ''));
  const status = await h.cli(['fork', 'status', '--json']);
  expect(status.code, status.stderr).toBe(0);
  expect(JSON.parse(status.stdout)).toEqual({ forks: [] });
  expect(h.gitIn(h.repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  expect(h.gitIn(h.repo, 'branch', '--list', 'citadel/*')).toBe('');
  expect(existsSync(path.join(h.root, 'worktrees')) ? readdirSync(path.join(h.root, 'worktrees')) : []).toEqual([]);
  expect(h.launches()).toEqual({ 'branch-claude': 0, 'branch-codex': 0 });

  const fresh = parseDoc(await h.cli(startArgs(h)));
  expectNormal(h, fresh);
  const listed = JSON.parse((await h.cli(['fork', 'status', '--json'])).stdout) as { forks: { fork_id: string }[] };
  expect(listed.forks.map((f) => f.fork_id)).toEqual([fresh.fork_id]);
}

/** Every JSON file parses, fork.json validates, the journal parses line by line with no torn tail. */
function expectNoTornFile(dir: string): void {
  for (const file of filesUnder(dir)) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    if (file.endsWith('.json')) expect(() => JSON.parse(text) as unknown, file).not.toThrow();
    if (file === 'fork.json') expect(ForkRecordSchema.safeParse(JSON.parse(text)).success, file).toBe(true);
    if (file === 'journal.jsonl') parseJournal(text);
  }
}

function parseJournal(text: string): JournalRecord[] {
  expect(text === '' || text.endsWith('\n'), 'journal ends mid-record').toBe(true);
  return text
    .split('\n')
    .slice(0, -1)
    .map((line, seq) => {
      const record = JournalRecordSchema.parse(JSON.parse(line));
      expect(record.seq).toBe(seq);
      return record;
    });
}

const journalFile = (h: ForkHarness, forkId: string): string => path.join(h.forkDir(forkId), 'journal.jsonl');
const journalOf = (h: ForkHarness, forkId: string): JournalRecord[] => parseJournal(readFileSync(journalFile(h, forkId), 'utf8'));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

function tempFilesUnder(dir: string): string[] {
  return existsSync(dir) ? filesUnder(dir).filter((f) => TEMP_FILE.test(f)) : [];
}

/**
 * Temp files the crash left behind. The detached supervisors outlive the crashed process and write
 * their run.json atomically too, so a temp seen once may be one of theirs in flight: only a temp
 * still there a moment later is a leftover.
 */
async function lastingTempFilesUnder(dir: string): Promise<string[]> {
  const seen = tempFilesUnder(dir);
  if (seen.length === 0) return seen;
  await sleep(1000);
  const now = new Set(tempFilesUnder(dir));
  return seen.filter((f) => now.has(f));
}

/**
 * The crash boundaries named in main/: literal `crashPoint('name')` calls, and the suffixes of
 * journal.ts's `crashPoint(\`${effect}:suffix\`)`, which exist for every journaled effect. Any
 * other form of call fails here, so no boundary can slip past the coverage check.
 */
function crashPointsInSource(): { literal: string[]; effectSuffixes: string[] } {
  const sources = filesUnder(path.join(REPO_ROOT, 'main'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(path.join(REPO_ROOT, 'main', f), 'utf8'));
  const all = (pattern: RegExp): string[] => sources.flatMap((text) => [...text.matchAll(pattern)].map((m) => m[1] ?? ''));
  const literal = all(/\bcrashPoint\('([^']+)'\)/g);
  const effectSuffixes = all(/\bcrashPoint\(`\$\{effect\}:([^`$]+)`\)/g);
  const calls = all(/(?<!function )\b(crashPoint)\(/g);
  expect(calls.length, 'a crashPoint call this test cannot read').toBe(literal.length + effectSuffixes.length);
  expect(literal.length).toBeGreaterThan(0);
  expect(effectSuffixes.length).toBeGreaterThan(0);
  return { literal: [...new Set(literal)], effectSuffixes: [...new Set(effectSuffixes)] };
}
