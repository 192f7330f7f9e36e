import { opencodeAdapter } from '../../../main/runtimes/opencode/adapter';
import { UNKNOWN_TELEMETRY } from '../../../shared/runtime/telemetry';
import type { ArgvRow, ConformanceCase } from './conformance-case';
import { cutMidJson, recordingRun } from './recorded';

/**
 * OpenCode 1.18.33 (test/fixtures/recordings/opencode). The argv is written out from the recordings,
 * literally (runtime-only: the model under the operator's provider id). The model is never in the
 * stream, so every transcript that printed an event warns `observed_model_missing`; a contained run's
 * model proof comes from the gateway's wire instead.
 */

const MODEL = 'qwen3-coder:30b';
const ARGV_ROWS: [provider: 'ollama' | 'lmstudio' | null, model: string | null, argv: string[]][] = [
  [null, null, ['opencode', 'run', '--format', 'json']],
  [null, MODEL, ['opencode', 'run', '--format', 'json', '-m', `openai/${MODEL}`]],
  ['ollama', MODEL, ['opencode', 'run', '--format', 'json', '-m', `ollama/${MODEL}`]],
  ['lmstudio', MODEL, ['opencode', 'run', '--format', 'json', '-m', `lmstudio/${MODEL}`]],
];
const argv: ArgvRow[] = ARGV_ROWS.map(([local_provider, model, args]) => ({ options: { model, local_provider, adapter_options: {} }, argv: args }));

/** The session each recording's events name. */
const SESSION = {
  text: 'ses_db662209bffeYx4adAnLZvgvwm',
  edit: 'ses_db661e4d8ffeqvAZpCELMitbb1',
  err401: 'ses_db66038bdffewptn8YtgYJFhUI',
  err500: 'ses_db6619ab8ffeG5PdfetF8RN0dD',
  cancel_sigterm: 'ses_db65ffb27fferhJXOew5x0lasd',
  cancel_sigint: 'ses_db65fbc64ffe4eI2NP37h3vI8z',
  write_outside_repo: 'ses_db65f4c3dffeILi8U0wh6iZwzN',
  model_served_differs: 'ses_db65f8ae3ffeGjrl9xdkaTHHeJ',
} as const;

const lines = (name: string): string[] => recordingRun('opencode', name).stdout.trimEnd().split('\n');
const PER_STEP = { input_tokens: 321, output_tokens: 54 } as const;

export const opencodeCase: ConformanceCase = {
  runtime: 'opencode',
  adapter: opencodeAdapter,
  models: [null, MODEL],
  argv,
  transcripts: {
    success: [
      {
        name: 'recordings/opencode/text',
        run: () => recordingRun('opencode', 'text'),
        expected: { succeeded: true, failure_code: null, telemetry: { ...UNKNOWN_TELEMETRY, ...PER_STEP }, session_ref: SESSION.text, warnings: ['observed_model_missing'] },
      },
      {
        name: 'recordings/opencode/edit (write tool, two steps)',
        run: () => recordingRun('opencode', 'edit'),
        expected: { succeeded: true, failure_code: null, telemetry: { ...UNKNOWN_TELEMETRY, input_tokens: 642, output_tokens: 108 }, session_ref: SESSION.edit, warnings: ['observed_model_missing'] },
      },
      {
        // The server answered as another model: OpenCode's output does not show it, so nothing is observed.
        name: 'recordings/opencode/model_served_differs',
        run: () => recordingRun('opencode', 'model_served_differs'),
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, ...PER_STEP },
          session_ref: SESSION.model_served_differs,
          warnings: ['observed_model_missing'],
        },
      },
    ],
    failure: [
      {
        name: 'recordings/opencode/err401 (error event, statusCode 401, exit 1)',
        run: () => recordingRun('opencode', 'err401'),
        expected: { succeeded: false, failure_code: 'RUNTIME_AUTH_FAILED', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.err401, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
      {
        name: 'recordings/opencode/err500 (error event after retries, exit 1)',
        run: () => recordingRun('opencode', 'err500'),
        expected: { succeeded: false, failure_code: 'RUNTIME_API_ERROR', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.err500, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
      {
        name: 'exit 1 with nothing printed',
        run: () => recordingRun('opencode', 'err500', { stdout: '', exitCode: 1 }),
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: [] },
      },
    ],
    interleaved: [
      {
        name: 'recordings/opencode/write_outside_repo (a rejected write, the rejection on stderr, exit 0)',
        run: () => recordingRun('opencode', 'write_outside_repo'),
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, ...PER_STEP },
          session_ref: SESSION.write_outside_repo,
          warnings: ['stderr_output', 'permission_denials', 'observed_model_missing'],
        },
      },
      {
        name: 'edit with the rejected write of write_outside_repo between its text and its write, and its stderr',
        run: () => {
          const [start, text, write, finish, ...rest] = lines('edit');
          const rejected = lines('write_outside_repo')[2]!.replaceAll(SESSION.write_outside_repo, SESSION.edit);
          const stdout = `${[start, text, rejected, write, finish, ...rest].join('\n')}\n`;
          return recordingRun('opencode', 'edit', { stdout, stderr: recordingRun('opencode', 'write_outside_repo').stderr });
        },
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...UNKNOWN_TELEMETRY, input_tokens: 642, output_tokens: 108 },
          session_ref: SESSION.edit,
          warnings: ['stderr_output', 'permission_denials', 'observed_model_missing'],
        },
      },
    ],
    truncated: [
      {
        name: 'text cut mid-JSON in its first line, exit 0',
        run: () => recordingRun('opencode', 'text', { stdout: cutMidJson(recordingRun('opencode', 'text').stdout) }),
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: [] },
      },
      {
        name: 'text cut mid-JSON in its step_finish, exit 0',
        run: () => {
          const [start, text, finish] = lines('text');
          return recordingRun('opencode', 'text', { stdout: `${start}\n${text}\n${finish!.slice(0, 60)}` });
        },
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.text, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
    ],
    cancelled: [
      {
        name: 'recordings/opencode/cancel_sigterm (only step_start printed)',
        run: () => recordingRun('opencode', 'cancel_sigterm'),
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.cancel_sigterm, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
      {
        name: 'recordings/opencode/cancel_sigint (only step_start printed)',
        run: () => recordingRun('opencode', 'cancel_sigint'),
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.cancel_sigint, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
      {
        name: 'SIGKILL after edit printed its first step_finish, in the middle of the next line',
        run: () => {
          const recorded = lines('edit');
          return recordingRun('opencode', 'edit', { stdout: `${recorded.slice(0, 4).join('\n')}\n${recorded[4]!.slice(0, 30)}`, exitCode: null, signal: 'SIGKILL' });
        },
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_EXITED_NONZERO',
          telemetry: { ...UNKNOWN_TELEMETRY, ...PER_STEP },
          session_ref: SESSION.edit,
          warnings: ['nonfatal_runtime_errors', 'observed_model_missing'],
        },
      },
    ],
    missing_telemetry: [
      {
        name: 'text with a step_finish lacking tokens',
        run: () => {
          const [start, text] = lines('text');
          const finish = JSON.stringify({ type: 'step_finish', timestamp: 1796531421803, sessionID: SESSION.text, part: { type: 'step-finish', reason: 'stop' } });
          return recordingRun('opencode', 'text', { stdout: `${start}\n${text}\n${finish}\n` });
        },
        expected: { succeeded: true, failure_code: null, telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.text, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
    ],
  },
  readiness: {
    versionLine: '1.18.33',
    authPresent: { env: { OPENAI_API_KEY: 'sk-openai-dummy' }, sources: ['OPENAI_API_KEY'] },
    authAbsent: { env: { ANTHROPIC_API_KEY: 'sk-ant-test-dummy', CODEX_API_KEY: 'sk-codex-dummy' } },
  },
};
