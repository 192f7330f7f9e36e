import { geminiAdapter } from '../../../main/runtimes/gemini/adapter';
import { UNKNOWN_TELEMETRY, type Telemetry } from '../../../shared/runtime/telemetry';
import type { ArgvRow, ConformanceCase } from './conformance-case';
import { recordingRun } from './recorded';

/**
 * Gemini CLI 0.61.0 (test/fixtures/recordings/gemini, real runs against a scripted Gemini API).
 * The served model is the one key of `result.stats.models`; errors come inside `result` and exit
 * with the HTTP status mod 256; a SIGTERM exits 0 without a result, so a cancel the process dies of
 * is synthesized from the recorded cancel's output.
 */

const MODEL = 'gemini-2.5-flash';
const MODELS = [null, MODEL] as const;
const APPROVAL_MODES = [undefined, 'default', 'auto_edit', 'plan'] as const;
const argv: ArgvRow[] = MODELS.flatMap((model) =>
  APPROVAL_MODES.map((mode) => ({
    options: { model, local_provider: null, adapter_options: mode === undefined ? {} : { approval_mode: mode } },
    argv: ['gemini', '-p', '', '-o', 'stream-json', ...(model === null ? [] : ['-m', model]), '--approval-mode', mode ?? 'auto_edit', '--skip-trust'],
  })),
);

const run = (name: string, overrides: Parameters<typeof recordingRun>[2] = {}) => recordingRun('gemini', name, overrides);
const lines = (name: string): string[] => run(name).stdout.trimEnd().split('\n');
const joined = (parts: readonly (string | undefined)[]): string => `${parts.join('\n')}\n`;

const SESSION = {
  text: 'e67bf304-83d4-4e5c-82d9-60c93afda672',
  edit: '0f8c8927-fb40-422e-b3de-1b1a51225337',
  err401: '66add9a9-9f6c-49f2-aa52-1accea16b1ba',
  err400: '974494e2-49ff-4279-91d0-cee0b55cb6eb',
  err500: '410e77cd-6be5-4472-90b9-a42f85905115',
  served: '87553799-fc8f-4f77-b3ae-48c664ddfe13',
  outside: '64b544cc-7033-4f5d-9d88-8dd8048b2d95',
  cancel: 'a31c8ca1-d9e6-4d72-b567-6407d1bf7063',
} as const;

const observed = (model: string): Pick<Telemetry, 'observed_model' | 'observed_model_source'> => ({ observed_model: model, observed_model_source: 'gemini_result_stats_models' });
/** Every recorded run prints the 256-colour and ripgrep warnings on stderr. */
const STDERR = 'stderr_output';
const UNMEASURED = [STDERR, 'observed_model_missing', 'tokens_missing'] as const;

export const geminiCase: ConformanceCase = {
  runtime: 'gemini',
  adapter: geminiAdapter,
  models: MODELS,
  argv,
  transcripts: {
    success: [
      {
        name: 'recordings/gemini/text',
        run: () => run('text'),
        expected: { succeeded: true, failure_code: null, telemetry: { ...UNKNOWN_TELEMETRY, ...observed(MODEL), input_tokens: 321, output_tokens: 54 }, session_ref: SESSION.text, warnings: [STDERR] },
      },
      {
        name: 'recordings/gemini/edit (write_file tool_use and its result, stats over two requests)',
        run: () => run('edit'),
        expected: { succeeded: true, failure_code: null, telemetry: { ...UNKNOWN_TELEMETRY, ...observed(MODEL), input_tokens: 642, output_tokens: 108 }, session_ref: SESSION.edit, warnings: [STDERR] },
      },
      {
        // init.model repeats -m; the served model is only the key of result.stats.models.
        name: 'recordings/gemini/model_served_differs: the served model, not the requested one',
        run: () => run('model_served_differs'),
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, ...observed('gemini-2.5-flash-served-by-scripted-server'), input_tokens: 321, output_tokens: 54 },
          session_ref: SESSION.served,
          warnings: [STDERR],
        },
      },
      {
        name: 'recordings/gemini/write_outside_repo: the write tool refused the path, the run still succeeded',
        run: () => run('write_outside_repo'),
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, ...observed(MODEL), input_tokens: 642, output_tokens: 108 },
          session_ref: SESSION.outside,
          warnings: [STDERR, 'nonfatal_runtime_errors'],
        },
      },
    ],
    failure: [
      {
        name: 'recordings/gemini/err401 (result status error, exit 145)',
        run: () => run('err401'),
        expected: { succeeded: false, failure_code: 'RUNTIME_AUTH_FAILED', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.err401, warnings: [...UNMEASURED] },
      },
      {
        name: 'recordings/gemini/err400_api_key_invalid (the real API’s wrong key, exit 144)',
        run: () => run('err400_api_key_invalid'),
        expected: { succeeded: false, failure_code: 'RUNTIME_AUTH_FAILED', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.err400, warnings: [...UNMEASURED] },
      },
      {
        name: 'recordings/gemini/err500 (ten attempts, exit 244)',
        run: () => run('err500'),
        expected: { succeeded: false, failure_code: 'RUNTIME_API_ERROR', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.err500, warnings: [...UNMEASURED] },
      },
      {
        name: 'recordings/gemini/no_auth_settings (empty stdout, exit 41)',
        run: () => run('no_auth_settings'),
        expected: { succeeded: false, failure_code: 'RUNTIME_AUTH_FAILED', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: [...UNMEASURED] },
      },
      {
        name: 'recordings/gemini/untrusted_folder (empty stdout, exit 55)',
        run: () => run('untrusted_folder'),
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: [...UNMEASURED] },
      },
    ],
    interleaved: [
      {
        name: 'edit with write_outside_repo’s refused tool call between its text deltas, and that run’s stderr',
        run: () => {
          const [init, user, preamble, toolUse, toolResult, final1, final2, result] = lines('edit');
          const [, , , refusedUse, refusedResult] = lines('write_outside_repo');
          return run('edit', { stdout: joined([init, user, preamble, refusedUse, toolUse, refusedResult, toolResult, final1, final2, result]), stderr: run('write_outside_repo').stderr });
        },
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, ...observed(MODEL), input_tokens: 642, output_tokens: 108 },
          session_ref: SESSION.edit,
          warnings: [STDERR, 'nonfatal_runtime_errors'],
        },
      },
    ],
    truncated: [
      {
        name: 'text cut mid-JSON in its result line, exit 0',
        run: () => {
          const recorded = lines('text');
          const result = recorded.at(-1)!;
          return run('text', { stdout: `${recorded.slice(0, -1).join('\n')}\n${result.slice(0, Math.floor(result.length / 2))}` });
        },
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.text, warnings: [...UNMEASURED] },
      },
      {
        // What Gemini CLI really prints when stopped: it exits 0 after the partial delta, with no result.
        name: 'recordings/gemini/cancel_sigterm as recorded (exit 0, no result line)',
        run: () => run('cancel_sigterm'),
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.cancel, warnings: [...UNMEASURED] },
      },
    ],
    cancelled: [
      {
        name: 'cancel_sigterm’s output, the process killed by SIGKILL after the grace period',
        run: () => run('cancel_sigterm', { exitCode: null, signal: 'SIGKILL' }),
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.cancel, warnings: [...UNMEASURED] },
      },
      {
        name: 'SIGTERM after text printed its result line',
        run: () => run('text', { exitCode: null, signal: 'SIGTERM' }),
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.text, warnings: [...UNMEASURED] },
      },
      {
        name: 'SIGKILL in the middle of edit’s tool_use line',
        run: () => {
          const recorded = lines('edit');
          return run('edit', { stdout: `${recorded.slice(0, 3).join('\n')}\n${recorded[3]!.slice(0, 30)}`, exitCode: null, signal: 'SIGKILL' });
        },
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.edit, warnings: [...UNMEASURED] },
      },
    ],
    missing_telemetry: [
      {
        name: 'text with a result lacking stats',
        run: () => {
          const recorded = lines('text');
          return run('text', { stdout: joined([...recorded.slice(0, -1), '{"type":"result","timestamp":"2026-12-06T04:25:32.969Z","status":"success"}']) });
        },
        expected: { succeeded: true, failure_code: null, telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.text, warnings: [...UNMEASURED] },
      },
    ],
  },
  readiness: {
    versionLine: '0.61.0',
    authPresent: { env: { GEMINI_API_KEY: 'AIza-test-dummy' }, sources: ['GEMINI_API_KEY'] },
    authAbsent: { env: { ANTHROPIC_API_KEY: 'sk-ant-test-dummy', OPENAI_API_KEY: 'sk-openai-dummy', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' } },
  },
};
