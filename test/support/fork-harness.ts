import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { installSimulatedRuntimes, type SimulationScenario } from '../../main/demo/simulated-runtime';
import { REPO_ROOT, runCli, type CliRun } from './run-cli';

export const BUILT_SIMULATOR = path.join(REPO_ROOT, 'out', 'cli', 'simulated-runtime.mjs');

export const BUGGY_SUM = 'export function sum(a, b) {\n  return a - b;\n}\n';
export const FIXED_SUM = 'export function sum(a, b) {\n  return a + b;\n}\n';
export const WRONG_SUM = 'export function sum(a, b) {\n  return Math.abs(a - b);\n}\n';
const SUM_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { sum } from '../src/sum.js';",
  "test('sum adds', () => assert.equal(sum(2, 3), 5));",
  '',
].join('\n');

/** An executor file of Claude and Codex with their defaults: a schema 2 fork of the two simulated runtimes. */
export const CLAUDE_CODEX_EXECUTORS = {
  schema_version: 1,
  executors: [
    { profile_id: 'claude', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
    { profile_id: 'codex', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
  ],
};

export const WORKFLOW = {
  schema_version: 1,
  steps: [
    { id: 'reproduce', instruction: 'Run the tests and see the failure.' },
    { id: 'fix', instruction: 'Fix src/sum.js so the tests pass.' },
  ],
  verifier: { command: 'node', args: ['--test', 'test/sum.test.js'], timeout_seconds: 60 },
  protected_paths: ['test/**'],
};

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

/**
 * A real target repository with a failing test, a fork root, and simulated `claude`/`codex`
 * executables first on PATH, for running the real CLI as a child process.
 */
/** The operator key every harness fork's gateway holds: the simulated runtimes never send it anywhere. */
export const HARNESS_API_KEY = 'sk-harness-not-a-secret';

export class ForkHarness {
  readonly repo: string;
  readonly root: string;
  readonly bin: string;
  readonly codexHome: string;
  readonly issuer: string;

  constructor(readonly base: string) {
    this.repo = path.join(base, 'repo');
    this.root = path.join(base, 'citadel-root');
    this.bin = path.join(base, 'bin');
    this.codexHome = path.join(base, 'codex-home');
    this.issuer = `test-${path.basename(base).toLowerCase().replace(/[^a-z0-9]/g, '')}`;
    mkdirSync(path.join(this.repo, 'src'), { recursive: true });
    mkdirSync(path.join(this.repo, 'test'), { recursive: true });
    mkdirSync(this.codexHome, { recursive: true });
    writeFileSync(path.join(this.repo, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(path.join(this.repo, 'src', 'sum.js'), BUGGY_SUM);
    writeFileSync(path.join(this.repo, 'test', 'sum.test.js'), SUM_TEST);
    writeFileSync(path.join(base, 'workflow.json'), JSON.stringify(WORKFLOW));
    git(this.repo, 'init', '-q', '-b', 'main');
    git(this.repo, 'add', '-A');
    git(this.repo, 'commit', '-q', '-m', 'initial');
  }

  get workflowFile(): string {
    return path.join(this.base, 'workflow.json');
  }

  async simulate(scenario: SimulationScenario): Promise<void> {
    await installSimulatedRuntimes(this.bin, scenario, process.execPath, BUILT_SIMULATOR);
  }

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      ...process.env,
      PATH: `${this.bin}${path.delimiter}${process.env.PATH ?? ''}`,
      CITADEL_HOME: this.root,
      CITADEL_ISSUER: this.issuer,
      CODEX_HOME: this.codexHome,
      // Citadel's own package cache (npm-cache.ts): one per test, so what one test's setup stored is not another's seed.
      XDG_CACHE_HOME: path.join(this.base, 'xdg-cache'),
      // A contained branch's gateway needs a credential on the host (issue 28); the simulated runtimes call no provider.
      ANTHROPIC_API_KEY: HARNESS_API_KEY,
      CODEX_API_KEY: HARNESS_API_KEY,
      ...extra,
    };
  }

  cli(args: readonly string[], extra: Record<string, string> = {}): Promise<CliRun> {
    return runCli(args, { env: this.env(extra), cwd: this.base });
  }

  async startJson(args: readonly string[], extra: Record<string, string> = {}): Promise<{ run: CliRun; doc: ForkStatusDoc }> {
    const run = await this.cli(['fork', 'start', 'Fix the sum function', '--repo', this.repo, ...args, '--json'], extra);
    return { run, doc: parseDoc(run) };
  }

  /** `fork land` for its token, then `fork land --confirm TOKEN`; throws with the output when either is refused. */
  async landConfirmed(forkId: string, extra: Record<string, string> = {}): Promise<void> {
    const plan = JSON.parse((await this.cli(['fork', 'land', forkId, '--json'], extra)).stdout) as { token: string | null; checks: unknown[] };
    if (plan.token === null) throw new Error(`no landing token: ${JSON.stringify(plan.checks)}`);
    const landed = await this.cli(['fork', 'land', forkId, '--confirm', plan.token, '--json'], extra);
    if (landed.code !== 0) throw new Error(`landing refused: ${landed.stdout}${landed.stderr}`);
  }

  gitIn(dir: string, ...args: string[]): string {
    return git(dir, ...args);
  }

  forkDir(forkId: string): string {
    return path.join(this.root, 'forks', forkId);
  }

  worktree(forkId: string, branchId: string): string {
    return path.join(this.root, 'worktrees', forkId, branchId);
  }

  attemptFile(forkId: string, branchId: string, name: string, attempt = 1): string {
    return path.join(this.forkDir(forkId), 'branches', branchId, `attempt-${attempt}`, name);
  }

  readJsonLines(file: string): Record<string, unknown>[] {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  readJson<T = Record<string, unknown>>(file: string): T {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  }
}

export interface ForkStatusDoc {
  fork_id: string;
  schema_version: number;
  state: string;
  revision: number;
  executor_set_digest: string | null;
  branches: { branch_id: string; runtime: string; state: string; failure_code: string | null; blocked_reason: string | null; blocked_code: string | null; attempt: number }[];
  error?: { code: string; message: string };
}

export function parseDoc(run: CliRun): ForkStatusDoc {
  try {
    return JSON.parse(run.stdout) as ForkStatusDoc;
  } catch {
    throw new Error(`CLI printed no JSON (exit ${run.code}):\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  }
}

export function branch(doc: ForkStatusDoc, id: string): ForkStatusDoc['branches'][number] {
  const found = doc.branches.find((b) => b.branch_id === id);
  if (!found) throw new Error(`no ${id} in ${JSON.stringify(doc)}`);
  return found;
}
