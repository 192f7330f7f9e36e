/**
 * The simulated qwen (main/demo/simulated-runtime/qwen.ts) read by the real Qwen Code adapter: each
 * scenario outcome becomes the failure code the recordings map it to, edits land only in an editing
 * approval mode, and the served model comes from the session file it writes under QWEN_HOME.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runSimulatedRuntime } from '../../../main/demo/simulated-runtime';
import { SIMULATION_FILE_NAME, type SimulationScenario } from '../../../main/demo/simulated-runtime/scenario';
import type { InvocationContainment } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import { qwenAdapter } from '../../../main/runtimes/qwen/adapter';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import { RuntimeActivitySchema } from '../../../shared/fork/events';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const PROFILE: RuntimeProfile = { profile_id: 'qwen-a', runtime: 'qwen', model: 'qwen3-coder-plus', local_provider: null, adapter_options: {} };

async function simulate(scenario: SimulationScenario, containment: InvocationContainment = 'contained') {
  const root = realpathSync(tempDir('citadel-sim-qwen-'));
  const repo = path.join(root, 'repo');
  mkdirSync(repo);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  const scenarioFile = path.join(root, SIMULATION_FILE_NAME);
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  const env = { QWEN_HOME: path.join(root, 'qwen-home'), OPENAI_API_KEY: 'placeholder' };
  let stdout = '';
  let stderr = '';
  const exitCode = await runSimulatedRuntime('qwen', qwenAdapter.invocation(PROFILE, containment).args, {
    stdin: Readable.from(['Fix it. (test prompt)\n']),
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: repo,
    env,
    scenarioFile,
  });
  const run = { stdout, stderr, exitCode, signal: null, worktree: repo, env };
  return { repo, run, parsed: await qwenAdapter.parseOutput(run) };
}

describe('simulated qwen read by the qwen adapter', () => {
  it('contained (auto-edit): edits the file, succeeds, and reports the served model and result usage', async () => {
    const { repo, run, parsed } = await simulate({ edits: [{ path: 'src/a.txt', content: 'a\n' }], observed_model: 'qwen3-coder-plus-served' });
    expect(readFileSync(path.join(repo, 'src/a.txt'), 'utf8')).toBe('a\n');
    expect(parsed).toEqual({
      succeeded: true,
      failure_code: null,
      telemetry: { observed_model: 'qwen3-coder-plus-served', observed_model_source: 'qwen_session_api_response', input_tokens: 642, output_tokens: 108, cost_usd: null },
      session_ref: expect.any(String),
      warnings: [],
    });
    for (const line of run.stdout.trimEnd().split('\n')) {
      const activity = qwenAdapter.liveActivity?.(line) ?? null;
      if (activity !== null) RuntimeActivitySchema.parse(activity);
    }
    expect(run.stdout.split('\n').map((line) => qwenAdapter.liveActivity?.(line)?.summary)).toContain('using write file');
  });

  it('uncontained (default mode): the write tool is not offered, so nothing is written; a text turn adds the memory request', async () => {
    const { repo, parsed } = await simulate({ edits: [{ path: 'src/a.txt', content: 'a\n' }] }, 'runtime-only');
    expect(existsSync(path.join(repo, 'src/a.txt'))).toBe(false);
    expect(parsed).toMatchObject({ succeeded: true, telemetry: { observed_model: 'qwen3-coder-plus', input_tokens: 642, output_tokens: 108 } });
  });

  it.each([
    ['auth_error', 'RUNTIME_AUTH_FAILED', 1],
    ['api_error_500', 'RUNTIME_API_ERROR', 1],
    ['no_server', 'RUNTIME_API_ERROR', 1],
    ['unparsable', 'RUNTIME_OUTPUT_UNPARSABLE', 0],
  ] as const)('outcome %s parses as %s', async (outcome, code, exitCode) => {
    const { run, parsed } = await simulate({ outcome });
    expect(run.exitCode).toBe(exitCode);
    expect(parsed).toMatchObject({ succeeded: false, failure_code: code });
  });

  it('refuses an approval mode Qwen Code does not know, as its argument parser does', async () => {
    const root = realpathSync(tempDir('citadel-sim-qwen-'));
    const scenarioFile = path.join(root, SIMULATION_FILE_NAME);
    writeFileSync(scenarioFile, '{}');
    let stderr = '';
    const io = { stdin: Readable.from(['x']), stdout: () => undefined, stderr: (text: string) => void (stderr += text), cwd: root, env: {}, scenarioFile };
    expect(await runSimulatedRuntime('qwen', ['--output-format', 'stream-json', '--approval-mode', 'everything'], io)).toBe(1);
    expect(stderr).toContain('Argument: approval-mode, Given: "everything"');
  });
});
