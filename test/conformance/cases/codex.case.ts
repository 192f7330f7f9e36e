import { codexAdapter } from '../../../main/runtimes/codex/adapter';
import { UNKNOWN_TELEMETRY, type Telemetry } from '../../../shared/runtime/telemetry';
import type { ArgvRow, ConformanceCase } from './conformance-case';
import { placeRecordedRollout, recordedRun } from './recorded';

/**
 * Codex 0.169.0 (recordings/codex). The argv is written out from decisions D5, literally. The model
 * never appears on stdout: it comes only from the rollout named by the thread id, so a transcript
 * without its rollout keeps the model unknown.
 */

const MODEL = 'qwen3-coder:30b';
const MODELS = [null, MODEL] as const;
const ARGV_ROWS: [sandbox: string | undefined, provider: 'ollama' | 'lmstudio' | null, model: string | null, argv: string[]][] = [
  [undefined, null, null, ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '-']],
  [undefined, null, MODEL, ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '--model', MODEL, '-']],
  [undefined, 'ollama', MODEL, ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '--oss', '--local-provider', 'ollama', '--model', MODEL, '-']],
  [undefined, 'lmstudio', MODEL, ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '--oss', '--local-provider', 'lmstudio', '--model', MODEL, '-']],
  ['workspace-write', null, null, ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '-']],
  ['workspace-write', null, MODEL, ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '--model', MODEL, '-']],
  ['workspace-write', 'ollama', MODEL, ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '--oss', '--local-provider', 'ollama', '--model', MODEL, '-']],
  ['workspace-write', 'lmstudio', MODEL, ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '--oss', '--local-provider', 'lmstudio', '--model', MODEL, '-']],
  ['read-only', null, null, ['codex', 'exec', '--json', '--sandbox', 'read-only', '--ignore-user-config', '-']],
  ['read-only', null, MODEL, ['codex', 'exec', '--json', '--sandbox', 'read-only', '--ignore-user-config', '--model', MODEL, '-']],
  ['read-only', 'ollama', MODEL, ['codex', 'exec', '--json', '--sandbox', 'read-only', '--ignore-user-config', '--oss', '--local-provider', 'ollama', '--model', MODEL, '-']],
  ['read-only', 'lmstudio', MODEL, ['codex', 'exec', '--json', '--sandbox', 'read-only', '--ignore-user-config', '--oss', '--local-provider', 'lmstudio', '--model', MODEL, '-']],
];
const argv: ArgvRow[] = ARGV_ROWS.map(([sandbox, local_provider, model, args]) => ({
  options: { model, local_provider, adapter_options: sandbox === undefined ? {} : { sandbox } },
  argv: args,
}));

/** Recorded runs with their thread id, rollout file name and the cwd that rollout binds. */
const RECORDED = {
  a_text: { thread: '01a22907-603e-7363-9eb9-ea16456b3e67', rollout: 'rollout-2026-11-29T20-37-58-01a22907-603e-7363-9eb9-ea16456b3e67.jsonl', cwd: '/tmp/lab/repo-codex-a_text-PpYN' },
  b1_shell: { thread: '01a22907-8644-7383-b862-28e76ef94e8f', rollout: 'rollout-2026-11-29T20-38-08-01a22907-8644-7383-b862-28e76ef94e8f.jsonl', cwd: '/tmp/lab/repo-codex-b1_shell-mv6c' },
  b2_patch: { thread: '01a22907-a797-7a73-9e44-bdaffb3426cb', rollout: 'rollout-2026-11-29T20-38-17-01a22907-a797-7a73-9e44-bdaffb3426cb.jsonl', cwd: '/tmp/lab/repo-codex-b2_patch-2FEy' },
  c2_err401: { thread: '01a22907-c731-7462-ba25-45cfd35ec900', rollout: 'rollout-2026-11-29T20-38-25-01a22907-c731-7462-ba25-45cfd35ec900.jsonl', cwd: '/tmp/lab/repo-codex-c2_err401-vfAO' },
} as const;
type WithRollout = keyof typeof RECORDED;

/** A recorded run whose rollout is back under a fresh CODEX_HOME, in the worktree it was recorded in. */
async function withRollout(scratch: string, name: WithRollout, overrides: { stdout?: string; stderr?: string } = {}) {
  const codexHome = await placeRecordedRollout(scratch, name, RECORDED[name].rollout);
  return recordedRun('codex', name, { worktree: RECORDED[name].cwd, env: { CODEX_HOME: codexHome }, ...overrides });
}

const lines = (name: string): string[] => recordedRun('codex', name).stdout.trimEnd().split('\n');
const ROLLOUT_MODEL: Pick<Telemetry, 'observed_model' | 'observed_model_source'> = { observed_model: MODEL, observed_model_source: 'codex_rollout_turn_context' };
/** Every recorded run prints the PATH-alias WARNING on stderr and a non-fatal model-metadata error item. */
const RECORDED_NOISE = ['stderr_output', 'nonfatal_runtime_errors'] as const;

export const codexCase: ConformanceCase = {
  runtime: 'codex',
  adapter: codexAdapter,
  models: MODELS,
  argv,
  transcripts: {
    success: [
      {
        name: 'recordings/codex/a_text with its rollout',
        run: (scratch) => withRollout(scratch, 'a_text'),
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, ...ROLLOUT_MODEL, input_tokens: 321, output_tokens: 54 },
          session_ref: RECORDED.a_text.thread,
          warnings: [...RECORDED_NOISE],
        },
      },
      {
        name: 'recordings/codex/b2_patch (file_change item) with its rollout',
        run: (scratch) => withRollout(scratch, 'b2_patch'),
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, ...ROLLOUT_MODEL, input_tokens: 642, output_tokens: 108 },
          session_ref: RECORDED.b2_patch.thread,
          warnings: [...RECORDED_NOISE],
        },
      },
    ],
    failure: [
      {
        // A rollout is written even when the turn fails, so its model is still observed.
        name: 'recordings/codex/c2_err401 with its rollout',
        run: (scratch) => withRollout(scratch, 'c2_err401'),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_AUTH_FAILED',
          telemetry: { ...UNKNOWN_TELEMETRY, ...ROLLOUT_MODEL },
          session_ref: RECORDED.c2_err401.thread,
          warnings: [...RECORDED_NOISE, 'tokens_missing'],
        },
      },
      {
        name: 'recordings/codex/c1_err500 without a CODEX_HOME',
        run: () => recordedRun('codex', 'c1_err500'),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_API_ERROR',
          telemetry: UNKNOWN_TELEMETRY,
          session_ref: '01a22907-c736-70c2-bd05-9fc1a010cfcf',
          warnings: [...RECORDED_NOISE, 'tokens_missing', 'rollout_not_found'],
        },
      },
      {
        name: 'recordings/codex/d1_noserver (empty stdout, OSS setup error on stderr)',
        run: () => recordedRun('codex', 'd1_noserver'),
        expected: { succeeded: false, failure_code: 'RUNTIME_PROVIDER_UNAVAILABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: ['stderr_output'] },
      },
    ],
    interleaved: [
      {
        name: 'recordings/codex/b1_shell with its rollout (command item started and completed around other lines)',
        run: (scratch) => withRollout(scratch, 'b1_shell'),
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, ...ROLLOUT_MODEL, input_tokens: 642, output_tokens: 108 },
          session_ref: RECORDED.b1_shell.thread,
          warnings: [...RECORDED_NOISE],
        },
      },
      {
        name: 'b1_shell with a recovered c1 retry error and a b2 file_change interleaved inside the command item, plus stderr pull progress',
        run: (scratch) => {
          const [started, metadata, turnStarted, commandStarted, commandDone, message, completed] = lines('b1_shell');
          // The patch item gets its own id, as a second item of the same turn would have.
          const [, , , patchStarted, patchDone] = lines('b2_patch').map((line) => line.replace('"id":"item_1"', '"id":"item_3"'));
          const [, , , retry] = lines('c1_err500');
          const stdout = [started, metadata, turnStarted, retry, commandStarted, patchStarted, patchDone, commandDone, message, completed, ''].join('\n');
          const stderr = `${recordedRun('codex', 'b1_shell').stderr}Pulling model qwen3-coder:30b...\nsuccess\n`;
          return withRollout(scratch, 'b1_shell', { stdout, stderr });
        },
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, ...ROLLOUT_MODEL, input_tokens: 642, output_tokens: 108 },
          session_ref: RECORDED.b1_shell.thread,
          warnings: [...RECORDED_NOISE],
        },
      },
    ],
    truncated: [
      {
        name: 'a_text cut mid-JSON before turn.completed, exit 0',
        run: () => {
          const [started, metadata, turnStarted, message] = lines('a_text');
          return recordedRun('codex', 'a_text', { stdout: `${started}\n${metadata}\n${turnStarted}\n${message!.slice(0, 40)}` });
        },
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_OUTPUT_UNPARSABLE',
          telemetry: UNKNOWN_TELEMETRY,
          session_ref: RECORDED.a_text.thread,
          warnings: [...RECORDED_NOISE, 'tokens_missing', 'rollout_not_found'],
        },
      },
    ],
    cancelled: [
      {
        name: 'SIGTERM after c2_err401 printed turn.failed, with its rollout',
        run: (scratch) => withRollout(scratch, 'c2_err401').then((run) => ({ ...run, exitCode: null, signal: 'SIGTERM' })),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_EXITED_NONZERO',
          telemetry: { ...UNKNOWN_TELEMETRY, ...ROLLOUT_MODEL },
          session_ref: RECORDED.c2_err401.thread,
          warnings: [...RECORDED_NOISE, 'tokens_missing'],
        },
      },
      {
        name: 'SIGKILL in the middle of the fourth a_text line',
        run: () => recordedRun('codex', 'a_text', { stdout: `${lines('a_text').slice(0, 3).join('\n')}\n${lines('a_text')[3]!.slice(0, 20)}`, exitCode: null, signal: 'SIGKILL' }),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_EXITED_NONZERO',
          telemetry: UNKNOWN_TELEMETRY,
          session_ref: RECORDED.a_text.thread,
          warnings: [...RECORDED_NOISE, 'tokens_missing', 'rollout_not_found'],
        },
      },
      {
        name: 'SIGTERM during the a_text turn: three complete lines printed',
        run: () => recordedRun('codex', 'a_text', { stdout: `${lines('a_text').slice(0, 3).join('\n')}\n`, exitCode: null, signal: 'SIGTERM' }),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_EXITED_NONZERO',
          telemetry: UNKNOWN_TELEMETRY,
          session_ref: RECORDED.a_text.thread,
          warnings: [...RECORDED_NOISE, 'tokens_missing', 'rollout_not_found'],
        },
      },
      {
        // Codex lingers about 5 s after turn.completed (recordings README): a kill then is still not a clean exit.
        name: 'SIGTERM after a_text printed turn.completed, with its rollout',
        run: (scratch) => withRollout(scratch, 'a_text').then((run) => ({ ...run, exitCode: null, signal: 'SIGTERM' })),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_EXITED_NONZERO',
          telemetry: { ...UNKNOWN_TELEMETRY, ...ROLLOUT_MODEL, input_tokens: 321, output_tokens: 54 },
          session_ref: RECORDED.a_text.thread,
          warnings: [...RECORDED_NOISE],
        },
      },
    ],
    missing_telemetry: [
      {
        name: 'a_text with turn.completed lacking usage, and no CODEX_HOME or HOME to find a rollout in',
        run: () => {
          const recorded = lines('a_text');
          return recordedRun('codex', 'a_text', { stdout: `${[...recorded.slice(0, -1), '{"type":"turn.completed"}'].join('\n')}\n` });
        },
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: UNKNOWN_TELEMETRY,
          session_ref: RECORDED.a_text.thread,
          warnings: [...RECORDED_NOISE, 'tokens_missing', 'rollout_not_found'],
        },
      },
    ],
  },
  readiness: {
    versionLine: 'codex-cli 0.169.0',
    authPresent: { env: { OPENAI_API_KEY: 'sk-openai-dummy' }, sources: ['OPENAI_API_KEY'] },
    authAbsent: { env: { ANTHROPIC_API_KEY: 'sk-ant-test-dummy', CODEX_OSS_PORT: '11434' } },
  },
};
