/**
 * The simulated `opencode` (main/demo/simulated-runtime/opencode.ts) as a real child process,
 * launched as Citadel launches OpenCode, read by OpenCode's own adapter: each scenario outcome
 * parses as the recorded run it stands for.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSimulatedRuntimes, type SimulationScenario } from '../../../main/demo/simulated-runtime';
import type { FinishedRun } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import { childEnvironment } from '../../../main/runtimes/env-allowlist';
import { opencodeAdapter } from '../../../main/runtimes/opencode/adapter';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import { BUILT_SIMULATOR } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const PROFILE: RuntimeProfile = { profile_id: 'opencode-local', runtime: 'opencode', model: 'qwen3-coder:30b', local_provider: 'ollama', adapter_options: {} };

async function run(scenario: SimulationScenario, options: { killAfterFirstLine?: boolean } = {}): Promise<{ repo: string; finished: FinishedRun }> {
  const root = realpathSync(tempDir('citadel-sim-opencode-'));
  const repo = path.join(root, 'repo');
  const bin = path.join(root, 'bin');
  mkdirSync(repo);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeFileSync(path.join(repo, 'README.md'), '# test repo\n');
  await installSimulatedRuntimes(bin, scenario, process.execPath, BUILT_SIMULATOR);
  const env = childEnvironment({ ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: root }, opencodeAdapter).env;
  const invocation = opencodeAdapter.invocation(PROFILE, 'contained');
  const child = spawn(invocation.executable, [...invocation.args], { cwd: repo, env, shell: false, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (options.killAfterFirstLine === true && stdout.includes('\n')) child.kill('SIGTERM');
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end('Make the change. (test prompt)\n');
  const finished = await new Promise<FinishedRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exitCode, signal) => resolve({ stdout, stderr, exitCode, signal, worktree: repo, env }));
  });
  return { repo, finished };
}

describe('simulated opencode', () => {
  it('edits the worktree and prints the recorded events: two steps of 321/54 tokens, no model', { timeout: 30_000 }, async () => {
    const { repo, finished } = await run({ edits: [{ path: 'hello.txt', content: 'hello\n' }] });
    expect(finished).toMatchObject({ exitCode: 0, stderr: '' });
    const types = finished.stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual(['step_start', 'text', 'tool_use', 'step_finish', 'step_start', 'text', 'step_finish']);
    expect(readFileSync(path.join(repo, 'hello.txt'), 'utf8')).toBe('hello\n');
    const parsed = await opencodeAdapter.parseOutput(finished);
    expect(parsed).toMatchObject({ succeeded: true, failure_code: null, telemetry: { observed_model: null, input_tokens: 642, output_tokens: 108 }, warnings: ['observed_model_missing'] });
    expect(parsed.session_ref).toMatch(/^ses_[0-9A-Za-z]+$/);
  });

  it.each([
    ['auth_error', 'RUNTIME_AUTH_FAILED'],
    ['api_error_500', 'RUNTIME_API_ERROR'],
    ['no_server', 'RUNTIME_API_ERROR'],
    ['unparsable', 'RUNTIME_OUTPUT_UNPARSABLE'],
  ] as const)('outcome %s parses as %s', { timeout: 30_000 }, async (outcome, code) => {
    const { finished } = await run({ outcome });
    expect(await opencodeAdapter.parseOutput(finished)).toMatchObject({ succeeded: false, failure_code: code });
  });

  it('a hanging run prints its step_start and is read as exited nonzero once killed', { timeout: 30_000 }, async () => {
    const { finished } = await run({ outcome: 'hang' }, { killAfterFirstLine: true });
    expect(finished).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
    expect(await opencodeAdapter.parseOutput(finished)).toMatchObject({ succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO' });
  });
});
