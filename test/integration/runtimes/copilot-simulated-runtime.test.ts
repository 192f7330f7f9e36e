/** The simulated `copilot` as a real child process, launched as Citadel launches it, read by the real adapter. */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSimulatedRuntimes, type SimulationScenario } from '../../../main/demo/simulated-runtime';
import { copilotAdapter } from '../../../main/runtimes/copilot/adapter';
import { childEnvironment } from '../../../main/runtimes/env-allowlist';
import { resolveExecutable } from '../../../main/runtimes/resolve-executable';
import type { FinishedRun } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import { REPO_ROOT } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const PROFILE: RuntimeProfile = { profile_id: 'copilot-mini', runtime: 'copilot', model: 'gpt-4.1-mini', local_provider: null, adapter_options: {} };
const RECORDINGS = path.join(REPO_ROOT, 'test/fixtures/recordings/copilot');

let buildDir = '';
let entryModule = '';

beforeAll(async () => {
  buildDir = mkdtempSync(path.join(tmpdir(), 'citadel-sim-build-'));
  entryModule = path.join(buildDir, 'simulated-runtime.mjs');
  await build({ absWorkingDir: REPO_ROOT, entryPoints: ['main/demo/simulated-runtime/index.ts'], outfile: entryModule, bundle: true, platform: 'node', target: 'node20', format: 'esm', logLevel: 'warning' });
});

afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

/** Every event type the real CLI printed across its recordings. */
function recordedTypes(): Set<string> {
  const types = new Set<string>();
  for (const name of readdirSync(RECORDINGS)) {
    for (const line of readFileSync(path.join(RECORDINGS, name, 'stdout.jsonl'), 'utf8').split('\n').filter(Boolean)) types.add((JSON.parse(line) as { type: string }).type);
  }
  return types;
}

describe('simulated copilot', () => {
  const tempDir = useTempDirs();

  async function run(scenario: SimulationScenario, options: { args?: readonly string[]; killWhenStreaming?: boolean } = {}) {
    const root = realpathSync(tempDir('citadel-sim-copilot-'));
    const repo = path.join(root, 'repo');
    const bin = path.join(root, 'bin');
    mkdirSync(repo);
    mkdirSync(path.join(root, 'home'));
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
    writeFileSync(path.join(repo, 'README.md'), '# test repo\n');
    execFileSync('git', ['add', 'README.md'], { cwd: repo });
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'init'], { cwd: repo });
    await installSimulatedRuntimes(bin, scenario, process.execPath, entryModule);
    const parent = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: path.join(root, 'home'), COPILOT_HOME: path.join(root, 'copilot-home') };
    const env = childEnvironment(parent, copilotAdapter).env;
    const resolved = await resolveExecutable(copilotAdapter.executable, copilotAdapter.vendorPackage, { env });
    const child = spawn(resolved.command, [...resolved.argsPrefix, ...(options.args ?? copilotAdapter.invocation(PROFILE).args)], { cwd: repo, env, shell: false, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (options.killWhenStreaming === true && chunk.includes('"assistant.message_delta"')) child.kill('SIGTERM');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.end('Make the change. (test prompt)\n');
    const finished = await new Promise<FinishedRun>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (exitCode, signal) => resolve({ stdout, stderr, exitCode, signal, worktree: repo, env }));
    });
    return { repo, finished, parsed: await copilotAdapter.parseOutput(finished) };
  }

  it('edits the worktree, prints only event types the real CLI printed, and records its usage in the session state', async () => {
    const { repo, finished, parsed } = await run({ edits: [{ path: 'src/hello.txt', content: 'hello\n' }] });
    expect(finished).toMatchObject({ exitCode: 0, stderr: '' });
    const events = finished.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; data?: { model?: string } });
    const known = recordedTypes();
    expect(events.map((e) => e.type).filter((type) => !known.has(type))).toEqual([]);
    expect(new Set(events.flatMap((e) => (e.data?.model === undefined ? [] : [e.data.model])))).toEqual(new Set(['gpt-4.1-mini']));
    const result = events.at(-1) as unknown as Record<string, unknown>;
    const recordedResult = JSON.parse(readFileSync(path.join(RECORDINGS, 'edit', 'stdout.jsonl'), 'utf8').trimEnd().split('\n').at(-1)!) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(Object.keys(recordedResult));
    expect(parsed).toEqual({
      succeeded: true,
      failure_code: null,
      telemetry: { observed_model: null, observed_model_source: null, input_tokens: 642, output_tokens: 108, cost_usd: null },
      session_ref: result.sessionId,
      warnings: ['observed_model_missing'],
    });
    expect(readFileSync(path.join(repo, 'src/hello.txt'), 'utf8')).toBe('hello\n');
    expect(events.map((e) => copilotAdapter.liveActivity!(JSON.stringify(e))?.summary).filter((s) => s !== undefined)).toEqual([
      'turn started',
      'message from the model',
      'using create',
      'tool call completed',
      'turn completed',
      'turn started',
      'message from the model',
      'turn completed',
      'session ended (exit 0)',
    ]);
  });

  it.each([
    ['auth_error', 'RUNTIME_AUTH_FAILED'],
    ['api_error_500', 'RUNTIME_API_ERROR'],
    ['no_server', 'RUNTIME_API_ERROR'],
    ['unparsable', 'RUNTIME_OUTPUT_UNPARSABLE'],
  ] as const)('outcome %s exits as recorded and parses as %s', async (outcome, code) => {
    const { finished, parsed } = await run({ outcome });
    expect(finished.exitCode).toBe(outcome === 'unparsable' ? 0 : 1);
    expect(parsed).toMatchObject({ succeeded: false, failure_code: code });
  });

  it('a hang killed by SIGTERM is a run that did not finish', async () => {
    const { finished, parsed } = await run({ outcome: 'hang' }, { killWhenStreaming: true });
    expect(finished).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
    expect(parsed).toMatchObject({ succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO' });
  });

  it('without --allow-all-tools every tool call is denied and nothing is written, as recorded', async () => {
    const { repo, parsed } = await run({ edits: [{ path: 'hello.txt', content: 'hello\n' }] }, { args: ['--output-format', 'json', '--no-auto-update'] });
    expect(parsed).toMatchObject({ succeeded: true, warnings: ['permission_denials', 'observed_model_missing'] });
    expect(existsSync(path.join(repo, 'hello.txt'))).toBe(false);
  });
});
