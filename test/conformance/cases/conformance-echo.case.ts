import { UNKNOWN_TELEMETRY } from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import type { ArgvRow, ConformanceCase, ProfileOptions } from './conformance-case';
import { conformanceEchoAdapter } from '../conformance-echo/adapter';
import { ECHO_VERSION_LINE } from '../conformance-echo/executable';

/**
 * The test-only runtime (conformance-echo/). It has no recordings: its transcripts are what its
 * executable prints (conformance-echo/executable.ts), and the kill and cut variants of that.
 */

const MODEL = 'echo-model-1';
const MODELS = [null, MODEL] as const;
const ARGV_ROWS: [verbosity: 'quiet' | 'loud' | undefined, model: string | null, argv: string[]][] = [
  [undefined, null, ['conformance-echo', 'run', '--format', 'jsonl', '--verbosity', 'quiet', '-']],
  [undefined, MODEL, ['conformance-echo', 'run', '--format', 'jsonl', '--verbosity', 'quiet', '--model', MODEL, '-']],
  ['quiet', null, ['conformance-echo', 'run', '--format', 'jsonl', '--verbosity', 'quiet', '-']],
  ['quiet', MODEL, ['conformance-echo', 'run', '--format', 'jsonl', '--verbosity', 'quiet', '--model', MODEL, '-']],
  ['loud', null, ['conformance-echo', 'run', '--format', 'jsonl', '--verbosity', 'loud', '-']],
  ['loud', MODEL, ['conformance-echo', 'run', '--format', 'jsonl', '--verbosity', 'loud', '--model', MODEL, '-']],
];
const argv: ArgvRow[] = ARGV_ROWS.map(([verbosity, model, args]) => {
  const options: ProfileOptions = { model, local_provider: null, adapter_options: verbosity === undefined ? {} : { verbosity } };
  return { options, argv: args };
});

const SESSION = '7d0c1a52-2f4e-4d53-9c51-0a9e3b1f6a10';
const START = `{"kind":"session","id":"${SESSION}"}`;
const EDIT = '{"kind":"edit","path":"src/sum.js"}';
const DONE = '{"kind":"result","ok":true,"usage":{"input_tokens":812,"output_tokens":52}}';
const LOUD = 'conformance-echo: read 812 bytes\n';

const run = (stdout: string, overrides: Partial<FinishedRun> = {}): FinishedRun => ({
  stdout,
  stderr: '',
  exitCode: 0,
  signal: null,
  worktree: '/nonexistent/worktree',
  env: {},
  ...overrides,
});
const output = (lines: readonly string[]): string => lines.map((line) => `${line}\n`).join('');
const TOKENS = { ...UNKNOWN_TELEMETRY, input_tokens: 812, output_tokens: 52 };

export const conformanceEchoCase: ConformanceCase = {
  runtime: 'conformance-echo',
  adapter: conformanceEchoAdapter,
  models: MODELS,
  argv,
  transcripts: {
    success: [
      {
        name: 'one edit, usage reported; the echo runtime never names a model',
        run: () => run(output([START, EDIT, DONE])),
        expected: { succeeded: true, failure_code: null, telemetry: TOKENS, session_ref: SESSION, warnings: ['observed_model_missing'] },
      },
    ],
    failure: [
      {
        name: 'auth failure result, exit 1',
        run: () => run(output([START, '{"kind":"result","ok":false,"error":"auth"}']), { exitCode: 1 }),
        expected: { succeeded: false, failure_code: 'RUNTIME_AUTH_FAILED', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
      {
        name: 'unknown error kind, exit 1',
        run: () => run(output([START, '{"kind":"result","ok":false,"error":"constructor"}']), { exitCode: 1 }),
        expected: { succeeded: false, failure_code: 'RUNTIME_API_ERROR', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
    ],
    interleaved: [
      {
        name: '--verbosity loud: progress on stderr, unknown event kinds and blank lines among the events',
        run: () => run(output([START, '', '{"kind":"progress","percent":50}', EDIT, '{"kind":"future"}', DONE]), { stderr: LOUD }),
        expected: { succeeded: true, failure_code: null, telemetry: TOKENS, session_ref: SESSION, warnings: ['stderr_output', 'observed_model_missing'] },
      },
    ],
    truncated: [
      {
        name: 'result line cut mid-JSON, exit 0',
        run: () => run(`${output([START, EDIT])}${DONE.slice(0, 30)}`),
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
    ],
    cancelled: [
      {
        name: 'SIGTERM after the edit, before the result',
        run: () => run(output([START, EDIT]), { stderr: LOUD, exitCode: null, signal: 'SIGTERM' }),
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION, warnings: ['stderr_output', 'tokens_missing', 'observed_model_missing'] },
      },
    ],
    missing_telemetry: [
      {
        name: 'success result without usage',
        run: () => run(output([START, EDIT, '{"kind":"result","ok":true}'])),
        expected: { succeeded: true, failure_code: null, telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION, warnings: ['tokens_missing', 'observed_model_missing'] },
      },
    ],
  },
  readiness: {
    versionLine: ECHO_VERSION_LINE,
    authPresent: { env: { CONFORMANCE_ECHO_TOKEN: 'echo-dummy' }, sources: ['CONFORMANCE_ECHO_TOKEN'] },
    authAbsent: { env: { ANTHROPIC_API_KEY: 'sk-ant-test-dummy', OPENAI_API_KEY: 'sk-openai-dummy' } },
  },
};
