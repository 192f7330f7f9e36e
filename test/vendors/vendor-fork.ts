import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { ForkHarness, parseDoc, type ForkStatusDoc } from '../support/fork-harness';
import { runCli, type CliRun } from '../support/run-cli';
import { installedVersionOutput, isExpectedVersion, VENDOR_CLIS, vendorBinDir } from './vendor-clis.mjs';

/**
 * Vendor test folders live under /var/tmp, not /tmp: Codex's workspace-write sandbox always lets a
 * command write /tmp, so a fork root under /tmp would hide what the sandbox does for a fork root in
 * a normal place (`~/.local/share/citadel`). The /tmp hole itself is probed on purpose.
 */
const VENDOR_TEST_ROOT = '/var/tmp';

export const CLAUDE_PROFILE = { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: { effort: 'high' } } as const;
export const OLLAMA_PROFILE = { profile_id: 'codex-ollama', runtime: 'codex', model: 'qwen3-coder:30b', local_provider: 'ollama', adapter_options: {} } as const;
export const LMSTUDIO_PROFILE = { profile_id: 'codex-lmstudio', runtime: 'codex', model: 'qwen3-coder-30b', local_provider: 'lmstudio', adapter_options: {} } as const;

export type Profile = { readonly profile_id: string; readonly runtime: string; readonly model: string; readonly local_provider: string | null; readonly adapter_options: Readonly<Record<string, string>> };

let checkedPath: string | undefined;

/** PATH for the CLI under test: the real vendor CLIs first, then Node and the system. Throws when a CLI is not the pinned version. */
export function vendorPath(): string {
  checkedPath ??= checkedVendorPath();
  return checkedPath;
}

/** Asks each CLI for its version once per test process; that takes about a second. */
function checkedVendorPath(): string {
  const dirs = VENDOR_CLIS.map((cli) => {
    const output = installedVersionOutput(cli);
    if (!isExpectedVersion(cli, output)) {
      throw new Error(`${cli.packageName}@${cli.version} is not installed (--version printed ${JSON.stringify(output)}); run node test/vendors/install-vendor-clis.mjs`);
    }
    return vendorBinDir(cli);
  });
  return [...dirs, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter);
}

/** Fresh folders under `root` (VENDOR_TEST_ROOT unless a probe needs /tmp), removed after the test that made them. */
export function useVendorTempDirs(): (root?: string) => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (root = VENDOR_TEST_ROOT) => {
    const dir = mkdtempSync(path.join(root, 'citadel-vendor-'));
    made.push(dir);
    return dir;
  };
}

export interface BranchRun {
  readonly receipt: ExecutionReceipt;
  readonly stdout: string;
  readonly runStatus: { runtime_pgid: number | null; exit_code: number | null; timed_out: boolean };
}

export interface ExecutionReceipt {
  argv_digest: string;
  status: string;
  failure_code: string | null;
  result_commit: string | null;
  exit: { code: number | null; timed_out: boolean };
  verifier: { status: string; steps: { id: string; status: string; exit_code: number | null }[] };
  telemetry: { observed_model: string | null; observed_model_source: string | null; input_tokens: number | null; output_tokens: number | null };
  env_names: string[];
  containment?: { mode: string; backend?: string; backend_version?: string; policy_digest?: string };
}

export interface CompareDoc {
  outcome: string;
  branches: { branch_id: string; comparable: boolean; receipt_verified: boolean; verifier_status: string; model_proof: string; warnings: string[] }[];
}

/**
 * One fork of the real Citadel CLI (`out/cli/citadel.mjs`, a child process) over the sum-bug
 * repository of ForkHarness, with the real vendor CLIs first on PATH and a minimal environment:
 * fresh HOME and CODEX_HOME, the fork root, the D-Bus session for the keychain, and whatever
 * endpoint variables a test adds. Nothing of the operator's own environment leaks in.
 */
export class VendorFork {
  readonly harness: ForkHarness;
  readonly home: string;
  /** A folder outside the repository, the fork root and every worktree, for probes to aim at. */
  readonly outside: string;

  constructor(readonly base: string) {
    this.harness = new ForkHarness(base);
    this.home = path.join(base, 'home');
    this.outside = path.join(base, 'outside');
    mkdirSync(this.outside);
    mkdirSync(this.home);
    // An identity, so that a git commit an agent attempts fails only if something stops it.
    writeFileSync(path.join(this.home, '.gitconfig'), '[user]\n\tname = Probe\n\temail = probe@localhost\n');
  }

  get repo(): string {
    return this.harness.repo;
  }

  get codexHome(): string {
    return this.harness.codexHome;
  }

  env(extra: Record<string, string>): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      PATH: vendorPath(),
      HOME: this.home,
      LANG: 'C.UTF-8',
      CITADEL_HOME: this.harness.root,
      CITADEL_ISSUER: this.harness.issuer,
      CODEX_HOME: this.codexHome,
      ...extra,
    };
    for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR']) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    return env;
  }

  cli(args: readonly string[], extra: Record<string, string> = {}): Promise<CliRun> {
    return runCli(args, { env: this.env(extra), cwd: this.base });
  }

  /** `citadel fork start` over these profiles with ForkHarness's workflow (verifier: `node --test test/sum.test.js`). */
  async start(profiles: readonly Profile[], env: Record<string, string>, extraArgs: readonly string[] = []): Promise<ForkStatusDoc> {
    const executors = path.join(this.base, 'executors.json');
    // Schema 1 holds only Claude and Codex profiles (executor-profiles.md); any other runtime needs schema 2.
    writeFileSync(executors, JSON.stringify({ schema_version: profiles.every((p) => p.runtime === 'claude' || p.runtime === 'codex') ? 1 : 2, executors: profiles }));
    const run = await this.cli(['fork', 'start', 'Fix the sum function', '--repo', this.repo, '--executors', executors, '--workflow', this.harness.workflowFile, ...extraArgs, '--json'], env);
    if (run.code !== 0) throw new Error(`fork start exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
    return parseDoc(run);
  }

  async compare(forkId: string): Promise<CompareDoc> {
    const run = await this.cli(['fork', 'compare', forkId, '--json']);
    if (run.code !== 0) throw new Error(`fork compare exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
    return JSON.parse(run.stdout) as CompareDoc;
  }

  branchRun(forkId: string, branchId: string): BranchRun {
    const file = (name: string): string => this.harness.attemptFile(forkId, branchId, name);
    return {
      receipt: this.harness.readJson<{ receipt: ExecutionReceipt }>(file('execution-receipt.json')).receipt,
      stdout: readFileSync(file('stdout.log'), 'utf8'),
      runStatus: this.harness.readJson(file('run.json')),
    };
  }

  worktree(forkId: string, branchId: string): string {
    return this.harness.worktree(forkId, branchId);
  }

  /** A contained attempt's own runtime home (CODEX_HOME is its `codex/`, CLAUDE_CONFIG_DIR its `claude/`). */
  runtimeHome(forkId: string, branchId: string): string {
    return this.harness.attemptFile(forkId, branchId, 'home');
  }

  git(dir: string, ...args: string[]): string {
    return this.harness.gitIn(dir, ...args);
  }
}

/** Pids of live processes whose cwd is inside `dir`: a runtime left behind would show up here. */
export function processesInside(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        return cwd === dir || cwd.startsWith(dir + path.sep);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** True while any process of the group still exists. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
