/**
 * Issue 11, through the engine with real bwrap: a fork whose `claude`/`codex` executables (first on
 * PATH) and whose workflow verifier (a script in the worktree) try what containment must deny, and
 * write what they saw. Contained (the default here, bwrap is installed) every probe is denied, read
 * from the probe's own record and, for writes and processes, from the host itself; the same probes
 * with `--containment runtime-only` succeed (the control that lets each assertion fail).
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installSimulatedRuntimes, type SimulationScenario } from '../../../main/demo/simulated-runtime';
import { privateKeyFromText } from '../../../main/evidence/keys/private-key-text';
import { signEnvelope } from '../../../main/evidence/signing/sign-envelope';
import { BUILT_SIMULATOR, HARNESS_API_KEY, parseDoc, type ForkStatusDoc } from '../../support/fork-harness';
import { runCli, type CliRun } from '../../support/run-cli';
import { runTag } from '../../support/run-tag';
import { processesTagged, removeTagged } from '../../support/tagged-leftovers';
import { useTempDirs } from '../../support/temp-dir';
import { execFileSync } from 'node:child_process';
import { PROBE_RUNTIME, PROBE_SCRIPT } from './probe-script';

const tempDir = useTempDirs();
const BRANCHES = ['branch-claude', 'branch-codex'] as const;
const HOST_TMP = '/tmp';

/** Reads, and connections: D-Bus, and a loopback port on the host that is not the branch's provider. */
const READ_PROBES = ['read_sibling_worktree', 'read_parent_untracked', 'read_objective', 'read_journal', 'read_key_store', 'dbus_socket', 'dbus_via_proc_environ', 'loopback_port', 'read_session_keyring'] as const;
const WRITE_PROBES = ['write_host_tmp', 'write_parent_repository', 'write_parent_git_config', 'write_sibling_worktree', 'write_own_git_metadata'] as const;
const ALL_PROBES = [...READ_PROBES, ...WRITE_PROBES, 'seed_read', 'seed_write', 'write_own_worktree', 'leave_process'] as const;
type Probe = (typeof ALL_PROBES)[number];
type Seen = Record<Probe, string>;

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

/** The D-Bus session socket of this test run (test/support/with-secret-service.sh), as a connectable path. */
function dbusSocket(): string {
  const address = process.env.DBUS_SESSION_BUS_ADDRESS ?? '';
  const match = /unix:(path|abstract)=([^,;]+)/.exec(address);
  if (!match) throw new Error(`the containment tests need a D-Bus session (run under test/support/with-secret-service.sh); got "${address}"`);
  return match[1] === 'abstract' ? `\0${match[2]}` : match[2]!;
}

/** Waits until no process carries `tag` (a sandbox's processes end just after its leader), at most `ms`. */
async function processesLeft(tag: string, ms = 3000): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = processesTagged(tag);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The runtime-only controls leave the probes' processes and /tmp files on purpose: every one carries
// its fork's token, so all of them go, seen by an assertion or not.
const tokens: string[] = [];
afterEach(() => {
  for (const token of tokens.splice(0)) removeTagged(token);
});

interface ProbeFork {
  readonly base: string;
  readonly repo: string;
  readonly root: string;
  readonly bin: string;
  readonly token: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * A target repository holding probe.mjs and its config (committed) and an untracked `.env`, a fork
 * root with the file key store, and on PATH either the probe executables (`runtime`) or the
 * simulated runtimes (`simulated`: they succeed, so the verifier runs).
 */
async function probeFork(
  runtimes: 'probe' | 'simulated',
  options: { skip?: { runtime?: readonly Probe[]; verifier?: readonly Probe[] }; hang?: readonly string[]; verifierTimeout?: number; simulation?: SimulationScenario } = {},
): Promise<ProbeFork> {
  const base = tempDir('citadel-contain-');
  const repo = path.join(base, 'repo');
  const root = path.join(base, 'citadel-root');
  const bin = path.join(base, 'bin');
  // This run's tag first: the global teardown fails the run when anything carrying it is left.
  const token = `${runTag()}-probe-${path.basename(base).replace(/[^A-Za-z0-9]/g, '')}`;
  tokens.push(token);
  mkdirSync(repo, { recursive: true });
  mkdirSync(bin, { recursive: true });
  const config = {
    root,
    repo,
    token,
    hostTmp: HOST_TMP,
    dbus: dbusSocket(),
    loopbackPort: hostPort,
    testPid: process.pid,
    sibling: { 'branch-claude': 'branch-codex', 'branch-codex': 'branch-claude' },
    skip: { runtime: options.skip?.runtime ?? [], verifier: options.skip?.verifier ?? [] },
    hang: options.hang ?? [],
  };
  writeFileSync(path.join(repo, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(repo, 'probe.mjs'), PROBE_SCRIPT);
  writeFileSync(path.join(repo, 'probe-config.json'), `${JSON.stringify(config, null, 2)}\n`);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'initial');
  writeFileSync(path.join(repo, '.env'), 'SECRET=parent-checkout\n');
  writeFileSync(
    path.join(base, 'workflow.json'),
    JSON.stringify({ schema_version: 1, steps: [{ id: 'probe', instruction: 'Probe.' }], verifier: { command: 'node', args: ['probe.mjs', 'verifier'], timeout_seconds: options.verifierTimeout ?? 60 }, protected_paths: [] }),
  );
  if (runtimes === 'probe') {
    for (const name of ['claude', 'codex']) {
      writeFileSync(path.join(bin, name), PROBE_RUNTIME);
      chmodSync(path.join(bin, name), 0o755);
    }
  } else {
    await installSimulatedRuntimes(bin, options.simulation ?? { outcome: 'success' }, process.execPath, BUILT_SIMULATOR);
  }
  const env = {
    ...process.env,
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    CITADEL_HOME: root,
    CITADEL_ISSUER: `test-${path.basename(base).toLowerCase().replace(/[^a-z0-9]/g, '')}`,
    CITADEL_KEYSTORE: 'file',
    CODEX_HOME: path.join(base, 'codex-home'),
    CLAUDE_CONFIG_DIR: path.join(base, 'claude-config'),
    // What the gateways hold (issue 28); the probe runtimes call no provider.
    ANTHROPIC_API_KEY: HARNESS_API_KEY,
    CODEX_API_KEY: HARNESS_API_KEY,
  };
  mkdirSync(env.CODEX_HOME, { recursive: true });
  mkdirSync(env.CLAUDE_CONFIG_DIR, { recursive: true });
  writeFileSync(path.join(env.CODEX_HOME, 'auth.json'), 'operator-credential codex\n');
  writeFileSync(path.join(env.CLAUDE_CONFIG_DIR, '.credentials.json'), 'operator-credential claude\n');
  return { base, repo, root, bin, token, env };
}

async function start(f: ProbeFork, containment: 'auto' | 'runtime-only', extra: readonly string[] = [], env: NodeJS.ProcessEnv = f.env): Promise<{ run: CliRun; doc: ForkStatusDoc }> {
  const args = ['fork', 'start', 'Probe the sandbox', '--repo', f.repo, '--runtimes', 'claude,codex', '--workflow', path.join(f.base, 'workflow.json'), '--json', ...extra];
  const run = await runCli(containment === 'auto' ? args : [...args, '--containment', containment], { env, cwd: f.base });
  return { run, doc: parseDoc(run) };
}

const contractOf = (f: ProbeFork, forkId: string) => JSON.parse(readFileSync(path.join(f.root, 'forks', forkId, 'contract.json'), 'utf8')) as { containment?: Record<string, unknown> };
const worktree = (f: ProbeFork, forkId: string, branchId: string) => path.join(f.root, 'worktrees', forkId, branchId);
const attemptFile = (f: ProbeFork, forkId: string, branchId: string, name: string) => path.join(f.root, 'forks', forkId, 'branches', branchId, 'attempt-1', name);
const tagOf = (f: ProbeFork, role: string, branchId: string) => `${f.token}-${role}-${branchId}`;

function runtimeSeen(f: ProbeFork, forkId: string, branchId: string): Seen {
  return JSON.parse(readFileSync(path.join(worktree(f, forkId, branchId), 'probe-runtime.json'), 'utf8')) as Seen;
}

function verifierSeen(f: ProbeFork, forkId: string, branchId: string): Seen {
  const out = readFileSync(attemptFile(f, forkId, branchId, 'verifier-workflow_verifier.out'), 'utf8');
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Seen;
}

/** What each write probe left on the host, and whether its left-behind process still runs. */
async function hostEffects(f: ProbeFork, forkId: string, role: string, branchId: string) {
  const tag = tagOf(f, role, branchId);
  const contains = (file: string) => existsSync(file) && readFileSync(file, 'utf8').includes(tag);
  const sibling = worktree(f, forkId, branchId === 'branch-claude' ? 'branch-codex' : 'branch-claude');
  const left = await processesLeft(tag);
  return {
    write_host_tmp: existsSync(path.join(HOST_TMP, tag)),
    write_parent_repository: existsSync(path.join(f.repo, `planted-${role}-${branchId}.txt`)),
    write_parent_git_config: contains(path.join(f.repo, '.git', 'config')),
    write_sibling_worktree: existsSync(path.join(sibling, `planted-by-${role}-${branchId}.txt`)),
    write_own_git_metadata: contains(path.join(f.root, 'repositories', forkId, `${branchId}.git`, 'config')),
    leave_process: left.length > 0,
  };
}

const NOTHING_ON_HOST = {
  write_host_tmp: false,
  write_parent_repository: false,
  write_parent_git_config: false,
  write_sibling_worktree: false,
  write_own_git_metadata: false,
  leave_process: false,
};
const EVERYTHING_ON_HOST = Object.fromEntries(Object.keys(NOTHING_ON_HOST).map((key) => [key, true]));

// A host loopback port that is nobody's provider: only an uncontained process may connect.
let hostPort = 0;
let hostServer: Server | null = null;
beforeAll(async () => {
  dbusSocket();
  const server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hostServer = server;
  hostPort = (server.address() as AddressInfo).port;
});
afterAll(() => {
  hostServer?.close();
});

describe('a contained branch (bubblewrap) sees only its worktree, its git metadata and the toolchain', () => {
  it('its runtime cannot read a sibling, the parent checkout, the fork state, the key store or D-Bus, write outside its worktree, or leave a process', async () => {
    const f = await probeFork('probe');
    const { run, doc } = await start(f, 'auto');
    expect(run.code, run.stderr).toBe(0);
    for (const branchId of BRANCHES) {
      const seen = runtimeSeen(f, doc.fork_id, branchId);
      // The probe ran, could write its worktree, and did start its left-behind process and its /tmp file.
      expect([seen.write_own_worktree, seen.leave_process, seen.write_host_tmp], branchId).toEqual(['ok', 'ok', 'ok']);
      for (const probe of [...READ_PROBES, 'write_parent_repository', 'write_parent_git_config', 'write_sibling_worktree', 'write_own_git_metadata'] as const) {
        expect(seen[probe], `${branchId} ${probe}`).not.toBe('ok');
      }
      // Denied by the seccomp filter itself, not by keyctl missing from the sandbox.
      expect(seen.read_session_keyring, branchId).toBe('EPERM');
      // The operator's login file is not in the sandbox at all (issue 28: the provider gateway on the host holds the credential).
      expect(seen.seed_read, `${branchId} seed`).toBe('ENOENT');
      const seedInHome = path.join(f.root, 'forks', doc.fork_id, 'branches', branchId, 'attempt-1', 'home', ...(branchId === 'branch-codex' ? ['codex', 'auth.json'] : ['claude', '.credentials.json']));
      expect(existsSync(seedInHome) ? readFileSync(seedInHome, 'utf8') : '', `${branchId}: the credential in the runtime home`).not.toContain('operator-credential');
      // The sandbox's own /tmp is private: the write "works" inside and never reaches the host.
      expect(await hostEffects(f, doc.fork_id, 'runtime', branchId), branchId).toEqual(NOTHING_ON_HOST);
    }
    expect(readFileSync(path.join(f.repo, '.env'), 'utf8')).toBe('SECRET=parent-checkout\n');
  });

  it('control: the same probes all succeed with --containment runtime-only', async () => {
    const f = await probeFork('probe');
    const { run, doc } = await start(f, 'runtime-only');
    expect(run.code, run.stderr).toBe(0);
    for (const branchId of BRANCHES) {
      const seen = runtimeSeen(f, doc.fork_id, branchId);
      for (const probe of ALL_PROBES) expect(seen[probe], `${branchId} ${probe}`).toBe('ok');
      expect(await hostEffects(f, doc.fork_id, 'runtime', branchId), branchId).toEqual(EVERYTHING_ON_HOST);
    }
  });

  it('its verifier (a script in the worktree) is denied the same, with no network; control: runtime-only lets it', async () => {
    for (const containment of ['auto', 'runtime-only'] as const) {
      // Runtime-only, claude's verifier writes into codex's worktree: codex's run waits for that file, so it
      // is part of codex's result, not an untracked file codex's collection removes before its verifier.
      const awaitSibling = ['sh', '-c', 'for i in $(seq 600); do [ -e planted-by-verifier-branch-claude.txt ] && exit 0; sleep 0.1; done'];
      const simulation: SimulationScenario = containment === 'auto' ? { outcome: 'success' } : { outcome: 'success', codex: { commands: [awaitSibling] } };
      // The verifier has no runtime home, so no seeded credential to probe.
      const f = await probeFork('simulated', { skip: { verifier: ['seed_read', 'seed_write'] }, simulation });
      const { run, doc } = await start(f, containment);
      expect(run.code, run.stderr).toBe(0);
      for (const branchId of BRANCHES) {
        const seen = verifierSeen(f, doc.fork_id, branchId);
        expect([seen.write_own_worktree, seen.leave_process], `${containment} ${branchId}`).toEqual(['ok', 'ok']);
        const effects = await hostEffects(f, doc.fork_id, 'verifier', branchId);
        if (containment === 'auto') {
          for (const probe of READ_PROBES) expect(seen[probe], `${branchId} verifier ${probe}`).not.toBe('ok');
          expect(seen.read_session_keyring, branchId).toBe('EPERM');
          expect(effects, branchId).toEqual(NOTHING_ON_HOST);
        } else {
          for (const probe of ALL_PROBES.filter((p) => !p.startsWith('seed_'))) expect(seen[probe], `${branchId} verifier ${probe}`).toBe('ok');
          expect(effects, branchId).toEqual(EVERYTHING_ON_HOST);
        }
      }
    }
  });
});

describe('the contract and the receipts bind the containment', () => {
  const receiptOf = (f: ProbeFork, forkId: string, branchId: string) =>
    (JSON.parse(readFileSync(attemptFile(f, forkId, branchId, 'execution-receipt.json'), 'utf8')) as { receipt: { containment?: Record<string, unknown> } }).receipt;

  it('contained: the contract names bubblewrap and a policy per branch; each receipt repeats its digest and the bwrap version', async () => {
    const f = await probeFork('simulated');
    const { run, doc } = await start(f, 'auto');
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state).toBe('ready');
    const containment = contractOf(f, doc.fork_id).containment as { mode: string; backend: string; runtime_policy_digests: Record<string, string> };
    expect(containment).toMatchObject({ mode: 'contained', backend: 'bubblewrap' });
    for (const branchId of BRANCHES) {
      expect(receiptOf(f, doc.fork_id, branchId).containment).toEqual({
        mode: 'contained',
        backend: 'bubblewrap',
        backend_version: expect.stringMatching(/^bubblewrap \d/) as unknown as string,
        policy_digest: containment.runtime_policy_digests[branchId],
      });
    }
    const compare = await runCli(['fork', 'compare', doc.fork_id, '--json'], { env: f.env, cwd: f.base });
    expect(compare.code, compare.stderr).toBe(0);
    const compared = JSON.parse(compare.stdout) as { branches: { branch_id: string; reasons: string[]; receipt_verified: boolean }[] };
    expect(compared.branches.map((b) => [b.receipt_verified, b.reasons])).toEqual([
      [true, []],
      [true, []],
    ]);
  });

  it('a receipt signed with the fork signing key but claiming other containment than its contract is refused (containment_mismatch)', async () => {
    const f = await probeFork('simulated');
    const { run, doc } = await start(f, 'auto');
    expect(run.code, run.stderr).toBe(0);
    const keyFile = path.join(f.root, 'keys', `${f.env.CITADEL_ISSUER!}.key`);
    const key = privateKeyFromText(readFileSync(keyFile, 'utf8').trim(), { issuerId: f.env.CITADEL_ISSUER!, store: 'test' });
    const file = attemptFile(f, doc.fork_id, 'branch-codex', 'execution-receipt.json');
    const receipt = (JSON.parse(readFileSync(file, 'utf8')) as { receipt: Record<string, unknown> }).receipt;
    writeFileSync(file, JSON.stringify(signEnvelope({ ...receipt, containment: { mode: 'runtime-only' } }, key)));
    const compare = await runCli(['fork', 'compare', doc.fork_id, '--json'], { env: f.env, cwd: f.base });
    const compared = JSON.parse(compare.stdout) as { branches: { branch_id: string; reasons: string[]; receipt_verified: boolean }[] };
    expect(compared.branches.map((b) => [b.branch_id, b.receipt_verified, b.reasons])).toEqual([
      ['branch-claude', true, []],
      ['branch-codex', false, ['containment_mismatch']],
    ]);
  });

  it('runtime-only: recorded in the contract and in every receipt', async () => {
    const f = await probeFork('simulated');
    const { run, doc } = await start(f, 'runtime-only');
    expect(run.code, run.stderr).toBe(0);
    expect(contractOf(f, doc.fork_id).containment).toEqual({ mode: 'runtime-only' });
    for (const branchId of BRANCHES) expect(receiptOf(f, doc.fork_id, branchId).containment).toEqual({ mode: 'runtime-only' });
  });
});

describe('fail closed: SANDBOX_UNAVAILABLE', () => {
  it('with bwrap absent from PATH, fork start refuses before any fork state, worktree or branch exists; runtime-only still starts', async () => {
    const f = await probeFork('simulated');
    // A PATH with git and node but no bwrap.
    const tools = path.join(f.base, 'tools');
    mkdirSync(tools);
    for (const tool of ['git', 'node']) symlinkSync(execFileSync('which', [tool], { encoding: 'utf8' }).trim(), path.join(tools, tool));
    const env = { ...f.env, PATH: `${f.bin}${path.delimiter}${tools}` };
    const refused = await start(f, 'auto', [], env);
    expect(refused.run.code).not.toBe(0);
    expect(refused.doc.error).toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    expect(refused.doc.error?.message).toMatch(/bwrap/);
    expect(refused.doc.error?.message).toMatch(/bubblewrap/);
    const forks = path.join(f.root, 'forks');
    expect(existsSync(forks) ? readdirSync(forks) : []).toEqual([]);
    expect(existsSync(path.join(f.root, 'worktrees')) ? readdirSync(path.join(f.root, 'worktrees')) : []).toEqual([]);
    expect(existsSync(path.join(f.root, 'repositories')) ? readdirSync(path.join(f.root, 'repositories')) : []).toEqual([]);
    expect(git(f.repo, 'branch', '--list', 'citadel/*')).toBe('');
    expect(git(f.repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);

    const chosen = await start(f, 'runtime-only', [], env);
    expect(chosen.run.code, chosen.run.stderr).toBe(0);
    expect(chosen.doc.error).toBeUndefined();
    expect(contractOf(f, chosen.doc.fork_id).containment).toEqual({ mode: 'runtime-only' });
    // Uncontained, each probe writes into its sibling's worktree; when that lands after the sibling's
    // commit, the sibling's result is refused as not its own tree. Any other end is a defect.
    for (const branch of chosen.doc.branches) {
      expect([['passed', null], ['failed', 'VERIFICATION_TREE_MISMATCH']], JSON.stringify(branch)).toContainEqual([branch.state, branch.failure_code]);
    }
  });
});

describe('fail closed: a backend lost between fork creation and launch', () => {
  it('resume without bwrap refuses with SANDBOX_UNAVAILABLE and launches nothing; with bwrap back the pending branch runs contained', async () => {
    const f = await probeFork('simulated');
    // The first launch is spawned, then the CLI dies: the second branch is still pending.
    const crashed = await runCli(['fork', 'start', 'Probe the sandbox', '--repo', f.repo, '--runtimes', 'claude,codex', '--workflow', path.join(f.base, 'workflow.json'), '--json'], {
      env: { ...f.env, CITADEL_CRASH_AT: 'runtime.launch:after-spawn' },
      cwd: f.base,
    });
    expect(crashed.code, 'killed at the crash point').toBeNull();
    const forkId = readdirSync(path.join(f.root, 'forks'))[0]!;
    const pending = attemptFile(f, forkId, 'branch-codex', 'status.json');
    expect(existsSync(pending), 'the second branch was not launched before the crash').toBe(false);

    const tools = path.join(f.base, 'tools');
    mkdirSync(tools);
    for (const tool of ['git', 'node']) symlinkSync(execFileSync('which', [tool], { encoding: 'utf8' }).trim(), path.join(tools, tool));
    const resumed = await runCli(['fork', 'resume', forkId, '--json'], { env: { ...f.env, PATH: `${f.bin}${path.delimiter}${tools}` }, cwd: f.base });
    expect(resumed.code).not.toBe(0);
    expect(parseDoc(resumed).error).toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    expect(existsSync(pending), 'nothing was launched without its sandbox').toBe(false);
    const status = await runCli(['fork', 'status', forkId, '--json'], { env: f.env, cwd: f.base });
    expect(parseDoc(status).branches.find((b) => b.branch_id === 'branch-codex')?.state).toBe('pending');

    const again = await runCli(['fork', 'resume', forkId, '--json'], { env: f.env, cwd: f.base });
    expect(again.code, again.stderr).toBe(0);
    // The launch the crash cut short is in doubt (that rule is unchanged); the pending one ran contained.
    expect(parseDoc(again).branches.map((b) => [b.branch_id, b.state, b.blocked_reason])).toEqual([
      ['branch-claude', 'blocked', 'launch_in_doubt'],
      ['branch-codex', 'passed', null],
    ]);
    for (const branchId of ['branch-codex']) {
      const receipt = (JSON.parse(readFileSync(attemptFile(f, forkId, branchId, 'execution-receipt.json'), 'utf8')) as { receipt: { containment?: Record<string, unknown> } }).receipt;
      expect(receipt.containment, branchId).toMatchObject({ mode: 'contained', backend: 'bubblewrap' });
    }
  });
});

describe('nothing of a branch outlives it', () => {
  it('a contained verifier that hangs past its timeout is killed with everything it started', async () => {
    const f = await probeFork('simulated', { hang: ['verifier:branch-claude'], verifierTimeout: 2, skip: { verifier: ['seed_read', 'seed_write'] } });
    const { run, doc } = await start(f, 'auto');
    expect(run.code, run.stderr).toBe(0);
    const receipt = (JSON.parse(readFileSync(attemptFile(f, doc.fork_id, 'branch-claude', 'execution-receipt.json'), 'utf8')) as { receipt: { verifier: { steps: { id: string; timed_out: boolean; status: string }[] } } }).receipt;
    expect(receipt.verifier.steps.find((step) => step.id === 'workflow_verifier')).toMatchObject({ status: 'failed', timed_out: true });
    const left = await processesLeft(tagOf(f, 'verifier', 'branch-claude'));
    expect(left, 'a process of the timed-out verifier is left').toEqual([]);
  });

  async function waitFor(file: string, ms = 20_000): Promise<void> {
    const until = Date.now() + ms;
    while (!existsSync(file)) {
      if (Date.now() > until) throw new Error(`${file} did not appear`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('STOP of a contained runtime that hangs ends its setsid child too; control: runtime-only leaves the child running', async () => {
    for (const containment of ['auto', 'runtime-only'] as const) {
      const f = await probeFork('probe', { hang: ['branch-claude'] });
      const { run, doc } = await start(f, containment, ['--detach']);
      expect(run.code, run.stderr).toBe(0);
      await waitFor(path.join(worktree(f, doc.fork_id, 'branch-claude'), 'probe-runtime.json'));
      const tag = tagOf(f, 'runtime', 'branch-claude');
      expect(processesTagged(tag), `${containment}: the probe's child runs before STOP`).not.toEqual([]);
      const stop = await runCli(['fork', 'stop', doc.fork_id, 'branch-claude', '--json'], { env: f.env, cwd: f.base });
      expect(stop.code, stop.stderr).toBe(0);
      const left = await processesLeft(tag);
      expect(left.length > 0, `${containment}: a process of the stopped branch is left`).toBe(containment === 'runtime-only');
    }
  });
});
