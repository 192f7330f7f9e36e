import { qwenAdapter } from '../../../main/runtimes/qwen/adapter';
import { UNKNOWN_TELEMETRY, type Telemetry } from '../../../shared/runtime/telemetry';
import type { ArgvRow, ConformanceCase, Transcript } from './conformance-case';
import { cutMidJson } from './recorded';
import { placeRecordedSession, recordedQwenRun } from '../../unit/runtimes/qwen-recorded';

/**
 * Qwen Code 0.24.4 (test/fixtures/recordings/qwen, README-new-runtimes.md). The argv is written out
 * literally. stdout repeats the requested model; the served one is only in the session file named by
 * the session_id, so a transcript without that file keeps the model unknown. Every recorded run
 * printed the vendored-ripgrep warning on stderr.
 */

const MODEL = 'qwen3-coder-plus';
const MODELS = [null, MODEL] as const;
const MODES = [undefined, 'plan', 'default', 'auto-edit'] as const;
const PROVIDERS = [null, 'ollama', 'lmstudio'] as const;

const argv: ArgvRow[] = MODELS.flatMap((model) =>
  PROVIDERS.filter((provider) => provider === null || model !== null).flatMap((local_provider) =>
    MODES.map(
      (mode): ArgvRow => ({
        options: { model, local_provider, adapter_options: mode === undefined ? {} : { approval_mode: mode } },
        // Uncontained (the suite's default), a profile without a mode gets `default`: auto-edit writes outside the repo.
        argv: ['qwen', '--output-format', 'stream-json', '--approval-mode', mode ?? 'default', ...(model === null ? [] : ['--model', model])],
      }),
    ),
  ),
);

const SESSIONS = {
  text: '85849d52-9ecf-42b0-8604-cc718115651f',
  edit: '901a6d70-0659-4f08-a76a-5178d37beb8d',
  err401: 'b401f7ce-2784-4d01-807a-89d13cf1a1e7',
  err500: 'aed1350f-1859-40fb-84ec-b0395856e8c2',
  cancel_sigterm: '29790bf8-4306-4e87-8972-2d42d149ee9a',
  cancel_sigint: '8bd06e14-3a17-4674-b5d0-7384daf8f9b6',
  model_served_differs: '6d86b439-3db8-4f88-a806-0ea4cb2d23f3',
} as const;

/** model_served_differs: the worktree it ran in, and the project folder Qwen Code named after it. */
const SERVED = {
  worktree: '/tmp/rec-lab/qwen-model_served_differs-PmWlLK/repo',
  project: '-tmp-rec-lab-qwen-model-served-differs-PmWlLK-repo',
  model: 'fake-coder-1-served-by-scripted-server',
} as const;

/** result.usage: the main request and the managed-memory extraction (text), or the edit's two turns: 2 × 321/54. */
const TOKENS: Telemetry = { ...UNKNOWN_TELEMETRY, input_tokens: 642, output_tokens: 108 };
/** A session_id without a QWEN_HOME to look it up in. */
const NO_SESSION_FILE = 'rollout_not_found' as const;

async function withSessionFile(scratch: string, overrides: { stdout?: string; stderr?: string } = {}) {
  const qwenHome = await placeRecordedSession(scratch, 'model_served_differs', SERVED.project, SESSIONS.model_served_differs, SERVED.worktree);
  return recordedQwenRun('model_served_differs', { worktree: SERVED.worktree, env: { QWEN_HOME: qwenHome }, ...overrides });
}

function textWith(edit: (event: Record<string, unknown>) => void): string {
  return `${recordedQwenRun('text')
    .stdout.trimEnd()
    .split('\n')
    .map((line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      edit(event);
      return JSON.stringify(event);
    })
    .join('\n')}\n`;
}

const failure = (name: 'err401' | 'err500', code: 'RUNTIME_AUTH_FAILED' | 'RUNTIME_API_ERROR'): Transcript => ({
  name: `recordings/qwen/${name} (exit 1, error result with 0/0 usage)`,
  run: () => recordedQwenRun(name),
  expected: { succeeded: false, failure_code: code, telemetry: UNKNOWN_TELEMETRY, session_ref: SESSIONS[name], warnings: ['stderr_output', 'tokens_missing', NO_SESSION_FILE] },
});

const cancelled = (name: 'cancel_sigterm' | 'cancel_sigint'): Transcript => ({
  name: `recordings/qwen/${name} (ended by the signal mid-stream, no result)`,
  run: () => recordedQwenRun(name),
  expected: {
    succeeded: false,
    failure_code: 'RUNTIME_EXITED_NONZERO',
    telemetry: UNKNOWN_TELEMETRY,
    session_ref: SESSIONS[name],
    warnings: ['stderr_output', 'tokens_missing', NO_SESSION_FILE],
  },
});

export const qwenCase: ConformanceCase = {
  runtime: 'qwen',
  adapter: qwenAdapter,
  models: MODELS,
  argv,
  transcripts: {
    success: [
      {
        name: 'recordings/qwen/model_served_differs with its session file: the served model, not the requested one',
        run: (scratch) => withSessionFile(scratch, { stderr: '' }),
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...TOKENS, observed_model: SERVED.model, observed_model_source: 'qwen_session_api_response' },
          session_ref: SESSIONS.model_served_differs,
          warnings: [],
        },
      },
      {
        name: 'recordings/qwen/edit (write_file tool_use and tool_result) without its session file',
        run: () => recordedQwenRun('edit', { stderr: '' }),
        expected: { succeeded: true, failure_code: null, telemetry: TOKENS, session_ref: SESSIONS.edit, warnings: [NO_SESSION_FILE] },
      },
    ],
    failure: [failure('err401', 'RUNTIME_AUTH_FAILED'), failure('err500', 'RUNTIME_API_ERROR')],
    interleaved: [
      {
        name: 'recordings/qwen/text (the ripgrep warning on stderr beside the events)',
        run: () => recordedQwenRun('text'),
        expected: { succeeded: true, failure_code: null, telemetry: TOKENS, session_ref: SESSIONS.text, warnings: ['stderr_output', NO_SESSION_FILE] },
      },
      {
        name: 'model_served_differs with its session file, CRLF and blank lines between events',
        run: async (scratch) => {
          const run = await withSessionFile(scratch);
          return { ...run, stdout: `\r\n${run.stdout.trimEnd().split('\n').join('\r\n\n')}\r\n` };
        },
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...TOKENS, observed_model: SERVED.model, observed_model_source: 'qwen_session_api_response' },
          session_ref: SESSIONS.model_served_differs,
          warnings: ['stderr_output'],
        },
      },
    ],
    truncated: [
      {
        name: 'recordings/qwen/text cut inside its first event, exit 0',
        run: () => recordedQwenRun('text', { stdout: cutMidJson(recordedQwenRun('text').stdout) }),
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: ['stderr_output'] },
      },
      {
        name: 'recordings/qwen/edit with its tool_use event cut in half before the result',
        run: () => {
          const lines = recordedQwenRun('edit').stdout.trimEnd().split('\n');
          const cut = lines.map((line, index) => (index === 3 ? line.slice(0, Math.floor(line.length / 2)) : line));
          return recordedQwenRun('edit', { stdout: `${cut.join('\n')}\n` });
        },
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: TOKENS, session_ref: SESSIONS.edit, warnings: ['stderr_output', NO_SESSION_FILE] },
      },
    ],
    cancelled: [cancelled('cancel_sigterm'), cancelled('cancel_sigint')],
    missing_telemetry: [
      {
        name: 'recordings/qwen/text without result.usage',
        run: () => recordedQwenRun('text', { stdout: textWith((event) => void (event.type === 'result' && delete event.usage)) }),
        expected: { succeeded: true, failure_code: null, telemetry: UNKNOWN_TELEMETRY, session_ref: SESSIONS.text, warnings: ['stderr_output', 'tokens_missing', NO_SESSION_FILE] },
      },
    ],
  },
  readiness: {
    versionLine: '0.24.4',
    authPresent: { env: { OPENAI_API_KEY: 'sk-test-dummy' }, sources: ['OPENAI_API_KEY'] },
    authAbsent: { env: { ANTHROPIC_API_KEY: 'sk-ant-dummy', OPENAI_BASE_URL: 'http://127.0.0.1:18090/v1' } },
  },
};
