import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSimulatedRuntimes, type SimulationScenario } from '../../../main/demo/simulated-runtime';
import { BUILTIN_ADAPTERS } from '../../../main/runtimes/registry';
import { childEnvironment } from '../../../main/runtimes/env-allowlist';
import { resolveExecutable } from '../../../main/runtimes/resolve-executable';
import type { FinishedRun, RuntimeAdapter } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import type { ExecutorProfile } from '../../../shared/executors/profile-schema';
import { REPO_ROOT } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const CLAUDE_PROFILE: ExecutorProfile = {
  profile_id: 'claude-opus',
  runtime: 'claude',
  model: 'claude-opus-4-5',
  local_provider: null,
  adapter_options: {},
};
const CODEX_PROFILE: ExecutorProfile = {
  profile_id: 'codex-local',
  runtime: 'codex',
  model: 'qwen3-coder:30b',
  local_provider: 'ollama',
  adapter_options: {},
};

let buildDir = '';
let entryModule = '';

beforeAll(async () => {
  buildDir = mkdtempSync(path.join(tmpdir(), 'citadel-sim-build-'));
  entryModule = path.join(buildDir, 'simulated-runtime.mjs');
  // Fully bundled: the temp folder has no node_modules to resolve packages from.
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ['main/demo/simulated-runtime/index.ts'],
    outfile: entryModule,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
  });
});

afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

interface Sandbox {
  repo: string;
  env: Record<string, string>;
  codexHome: string;
}

interface Started {
  child: ChildProcess;
  done: Promise<FinishedRun>;
  firstStdout: Promise<void>;
}

describe('simulated claude and codex as real child processes', () => {
  const tempDir = useTempDirs();

  function git(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd, encoding: 'utf8' });
  }

  /** A git repository with one commit, the simulated runtimes first on PATH, and a fresh HOME/CODEX_HOME. */
  async function sandbox(scenario: SimulationScenario, adapter: RuntimeAdapter): Promise<Sandbox> {
    const root = realpathSync(tempDir('citadel-sim-'));
    const repo = path.join(root, 'repo');
    const bin = path.join(root, 'bin');
    const home = path.join(root, 'home');
    const codexHome = path.join(root, 'codex-home');
    mkdirSync(repo);
    mkdirSync(home);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'README.md'), '# test repo\n');
    git(repo, 'add', 'README.md');
    git(repo, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'init');
    await installSimulatedRuntimes(bin, scenario, process.execPath, entryModule);
    const parentEnv = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: home, CODEX_HOME: codexHome };
    return { repo, codexHome, env: childEnvironment(parentEnv, adapter).env };
  }

  /** Launches the runtime as Citadel does: bare name on PATH, canonical argv, shell false, prompt on stdin. */
  async function start(adapter: RuntimeAdapter, profile: ExecutorProfile, box: Sandbox): Promise<Started> {
    const resolved = await resolveExecutable(adapter.executable, adapter.vendorPackage, { env: box.env });
    const child = spawn(resolved.command, [...resolved.argsPrefix, ...adapter.invocation(profile).args], {
      cwd: box.repo,
      env: box.env,
      shell: false,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let sawStdout: () => void = () => undefined;
    const firstStdout = new Promise<void>((resolve) => (sawStdout = resolve));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      sawStdout();
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin?.end('Make the change. (test prompt)\n');
    const done = new Promise<FinishedRun>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (exitCode, signal) => resolve({ stdout, stderr, exitCode, signal, worktree: box.repo, env: box.env }));
    });
    return { child, done, firstStdout };
  }

  async function run(adapter: RuntimeAdapter, profile: ExecutorProfile, scenario: SimulationScenario) {
    const box = await sandbox(scenario, adapter);
    const finished = await (await start(adapter, profile, box)).done;
    return { box, finished, parsed: await adapter.parseOutput(finished) };
  }

  it('claude: edits the worktree and reports the requested model in the recorded result shape', async () => {
    const { box, finished, parsed } = await run(BUILTIN_ADAPTERS.claude, CLAUDE_PROFILE, { edits: [{ path: 'src/hello.txt', content: 'hello\n' }] });
    expect(finished).toMatchObject({ exitCode: 0, stderr: '' });
    expect(finished.stdout.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(finished.stdout) as object)).toEqual(
      Object.keys(JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/runtimes/claude/a_text/stdout.txt'), 'utf8')) as object),
    );
    expect(parsed).toMatchObject({
      succeeded: true,
      failure_code: null,
      telemetry: { observed_model: 'claude-opus-4-5', observed_model_source: 'claude_result_model_usage', input_tokens: 246, output_tokens: 90 },
      warnings: [],
    });
    expect(readFileSync(path.join(box.repo, 'src/hello.txt'), 'utf8')).toBe('hello\n');
    expect(git(box.repo, 'status', '--porcelain')).toBe('?? src/\n');
  });

  it('codex: edits the worktree, prints the recorded events and writes a rollout naming the model', async () => {
    const { box, finished, parsed } = await run(BUILTIN_ADAPTERS.codex, CODEX_PROFILE, { edits: [{ path: 'README.md', content: '# edited\n' }] });
    expect(finished.exitCode).toBe(0);
    const types = finished.stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual(['thread.started', 'item.completed', 'turn.started', 'item.started', 'item.completed', 'item.completed', 'turn.completed']);
    expect(parsed).toMatchObject({
      succeeded: true,
      telemetry: { observed_model: 'qwen3-coder:30b', observed_model_source: 'codex_rollout_turn_context', input_tokens: 642, output_tokens: 108, cost_usd: null },
      warnings: ['nonfatal_runtime_errors'],
    });
    expect(parsed.session_ref).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(git(box.repo, 'diff', '--stat')).toContain('README.md');
    const day = execFileSync('find', [path.join(box.codexHome, 'sessions'), '-name', `*-${parsed.session_ref ?? ''}.jsonl`], { encoding: 'utf8' });
    expect(day.trim()).toMatch(/sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-[\dT-]+-[0-9a-f-]{36}\.jsonl$/);
  });

  it('makes a model mismatch observable: the runtime reports observed_model instead of the requested one', async () => {
    const scenario = { observed_model: 'claude-haiku-4-5', codex: { observed_model: 'gpt-oss:20b' } };
    expect((await run(BUILTIN_ADAPTERS.claude, CLAUDE_PROFILE, scenario)).parsed.telemetry.observed_model).toBe('claude-haiku-4-5');
    expect((await run(BUILTIN_ADAPTERS.codex, CODEX_PROFILE, scenario)).parsed.telemetry.observed_model).toBe('gpt-oss:20b');
  });

  it.each([
    ['claude', 'auth_error', 'RUNTIME_AUTH_FAILED'],
    ['claude', 'api_error_500', 'RUNTIME_API_ERROR'],
    ['claude', 'no_server', 'RUNTIME_PROVIDER_UNAVAILABLE'],
    ['claude', 'unparsable', 'RUNTIME_OUTPUT_UNPARSABLE'],
    ['codex', 'auth_error', 'RUNTIME_AUTH_FAILED'],
    ['codex', 'api_error_500', 'RUNTIME_API_ERROR'],
    ['codex', 'no_server', 'RUNTIME_PROVIDER_UNAVAILABLE'],
    ['codex', 'unparsable', 'RUNTIME_OUTPUT_UNPARSABLE'],
  ] as const)('%s outcome %s parses as %s', async (runtime, outcome, code) => {
    const { parsed } = await run(BUILTIN_ADAPTERS[runtime], runtime === 'claude' ? CLAUDE_PROFILE : CODEX_PROFILE, { outcome });
    expect(parsed).toMatchObject({ succeeded: false, failure_code: code });
  });

  it('drives both runtimes from one scenario file, per-runtime sections over shared fields', async () => {
    const scenario: SimulationScenario = { exit_code: 3, codex: { outcome: 'auth_error', exit_code: 1 } };
    const claude = await run(BUILTIN_ADAPTERS.claude, CLAUDE_PROFILE, scenario);
    expect(claude.finished.exitCode).toBe(3);
    expect(claude.parsed).toMatchObject({ succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: { observed_model: 'claude-opus-4-5' } });
    const codex = await run(BUILTIN_ADAPTERS.codex, CODEX_PROFILE, scenario);
    expect(codex.finished.exitCode).toBe(1);
    expect(codex.parsed.failure_code).toBe('RUNTIME_AUTH_FAILED');
  });

  it('really runs the git commands that Citadel must catch', async () => {
    const commit = await run(BUILTIN_ADAPTERS.claude, CLAUDE_PROFILE, { outcome: 'git_commit', edits: [{ path: 'a.txt', content: 'a\n' }] });
    expect(commit.parsed.succeeded).toBe(true);
    expect(git(commit.box.repo, 'log', '--format=%s')).toBe('simulated agent commit\ninit\n');

    const checkout = await run(BUILTIN_ADAPTERS.codex, CODEX_PROFILE, { outcome: 'git_checkout' });
    expect(checkout.parsed.succeeded).toBe(true);
    expect(git(checkout.box.repo, 'branch', '--show-current')).toMatch(/^simulated-checkout-[0-9a-f]{8}\n$/);
    expect(checkout.finished.stdout).toContain('"type":"command_execution"');

    const worktree = await run(BUILTIN_ADAPTERS.claude, CLAUDE_PROFILE, { outcome: 'git_worktree_add' });
    expect(worktree.parsed.succeeded).toBe(true);
    expect(git(worktree.box.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(2);
  });

  it.each([
    ['claude', CLAUDE_PROFILE],
    ['codex', CODEX_PROFILE],
  ] as const)('%s: a hanging run stays up until killed, and is then read as exited nonzero', async (runtime, profile) => {
    const adapter = BUILTIN_ADAPTERS[runtime];
    const box = await sandbox({ outcome: 'hang', edits: [{ path: 'partial.txt', content: 'half done\n' }] }, adapter);
    const started = await start(adapter, profile, box);
    // Claude prints nothing until it ends; Codex streams its first events, then hangs.
    if (runtime === 'codex') await started.firstStdout;
    await expect(Promise.race([started.done, new Promise((resolve) => setTimeout(() => resolve('still running'), 1500))])).resolves.toBe('still running');
    started.child.kill('SIGTERM');
    const finished = await started.done;
    expect(finished).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
    const parsed = await adapter.parseOutput(finished);
    expect(parsed).toMatchObject({ succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO' });
    expect(readFileSync(path.join(box.repo, 'partial.txt'), 'utf8')).toBe('half done\n');
    if (runtime === 'codex') expect(parsed.telemetry.observed_model).toBe('qwen3-coder:30b');
  });

  it('installs executable #! wrappers and refuses what would not run', async () => {
    const bin = path.join(tempDir(), 'bin');
    const written = await installSimulatedRuntimes(bin, { outcome: 'success' }, process.execPath, entryModule);
    for (const file of [written.claude, written.codex]) {
      expect(statSync(file).mode & 0o777).toBe(0o755);
      expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(`#!${process.execPath}`);
    }
    expect(JSON.parse(readFileSync(written.scenarioFile, 'utf8'))).toEqual({ outcome: 'success' });
    await expect(installSimulatedRuntimes(bin, { outcome: 'explode' } as never, process.execPath, entryModule)).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    await expect(installSimulatedRuntimes(bin, {}, process.execPath, path.join(bin, 'missing.mjs'))).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    await expect(installSimulatedRuntimes(bin, { edits: [{ path: '/etc/x', content: '' }] }, process.execPath, entryModule)).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
    });
  });
});
