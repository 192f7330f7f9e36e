import { claudeAdapter } from '../../../main/runtimes/claude/adapter';
import { UNKNOWN_TELEMETRY, type Telemetry } from '../../../shared/runtime/telemetry';
import type { ArgvRow, ConformanceCase, ProfileOptions } from './conformance-case';
import { cutMidJson, recordedRun } from './recorded';

/**
 * Claude Code 2.1.328 (recordings/claude). The argv is written out from decisions D5, literally:
 * it is not computed by the adapter's own code.
 */
const ALLOWED =
  'Read,Glob,Grep,Bash(npm test:*),Bash(npm run test:*),Bash(npm run lint:*),Bash(npm run build:*),Bash(npm run typecheck:*),' +
  'Bash(npx vitest:*),Bash(node --test:*),Bash(git status:*),Bash(git diff:*),Bash(git log:*),Bash(git show:*),Bash(git ls-files:*),' +
  'Bash(git grep:*),Bash(git blame:*)';
const DENIED =
  'Bash(git branch:*),Bash(git checkout:*),Bash(git switch:*),Bash(git commit:*),Bash(git reset:*),Bash(git clean:*),' +
  'Bash(git worktree:*),Bash(git push:*),Bash(git merge:*),Bash(git rebase:*),Bash(git stash:*),Bash(git tag:*),' +
  'Bash(git update-ref:*),Bash(git config:*),Bash(claude:*),Bash(codex:*),Bash(sudo:*),WebFetch,WebSearch';

const MODELS = [null, 'claude-sonnet-4-5'] as const;
const MODES = [undefined, 'acceptEdits', 'auto', 'manual', 'dontAsk', 'plan'] as const;
const EFFORTS = [undefined, 'low', 'medium', 'high', 'xhigh', 'max'] as const;

const argv: ArgvRow[] = MODELS.flatMap((model) =>
  MODES.flatMap((mode) =>
    EFFORTS.map((effort): ArgvRow => {
      const options: ProfileOptions = {
        model,
        local_provider: null,
        adapter_options: { ...(mode === undefined ? {} : { permission_mode: mode }), ...(effort === undefined ? {} : { effort }) },
      };
      return {
        options,
        argv: [
          'claude', '--print', '--output-format', 'json', '--permission-mode', mode ?? 'acceptEdits',
          '--allowedTools', ALLOWED, '--disallowedTools', DENIED,
          ...(model === null ? [] : ['--model', model]),
          ...(effort === undefined ? [] : ['--effort', effort]),
        ],
      };
    }),
  ),
);

/** a_text's result: model from the modelUsage key, usage 123/45, total_cost_usd 0.001044. */
const A_TEXT_TELEMETRY: Telemetry = {
  observed_model: 'claude-sonnet-4-5',
  observed_model_source: 'claude_result_model_usage',
  input_tokens: 123,
  output_tokens: 45,
  cost_usd: 0.001044,
};
const A_TEXT_SESSION = '5a59e390-8ac7-45d4-836c-be1fd84b1fe5';
/** Every recorded error result carries zero usage, zero cost and an empty modelUsage: placeholders, so unknown. */
const UNKNOWN_TELEMETRY_WARNINGS = ['observed_model_missing', 'tokens_missing', 'cost_missing'] as const;
const EFFORT_WARNING = "Warning: Unknown --effort value 'ultra' — ignoring it and using the default effort. Valid values: low, medium, high, xhigh, max.\n";

function aTextWith(edit: (result: Record<string, unknown>) => void): string {
  const result = JSON.parse(recordedRun('claude', 'a_text').stdout) as Record<string, unknown>;
  edit(result);
  return `${JSON.stringify(result)}\n`;
}

const failure = (name: string, session: string, code: 'RUNTIME_AUTH_FAILED' | 'RUNTIME_API_ERROR' | 'RUNTIME_PROVIDER_UNAVAILABLE') => ({
  name: `recordings/claude/${name}`,
  run: () => recordedRun('claude', name),
  expected: { succeeded: false, failure_code: code, telemetry: UNKNOWN_TELEMETRY, session_ref: session, warnings: [...UNKNOWN_TELEMETRY_WARNINGS] },
});

export const claudeCase: ConformanceCase = {
  runtime: 'claude',
  adapter: claudeAdapter,
  models: MODELS,
  argv,
  transcripts: {
    success: [
      {
        name: 'recordings/claude/a_text',
        run: () => recordedRun('claude', 'a_text'),
        expected: { succeeded: true, failure_code: null, telemetry: A_TEXT_TELEMETRY, session_ref: A_TEXT_SESSION, warnings: [] },
      },
      {
        name: 'recordings/claude/b2_tool_edit (Read, Edit, Bash(git diff): usage summed over turns)',
        run: () => recordedRun('claude', 'b2_tool_edit'),
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: { ...A_TEXT_TELEMETRY, input_tokens: 492, output_tokens: 180, cost_usd: 0.004176 },
          session_ref: '90490fc3-fa89-46b9-a2a2-65c2b1f084aa',
          warnings: [],
        },
      },
    ],
    failure: [
      failure('c1_err401', '6aedb366-04ee-454f-a644-00a95bc8097e', 'RUNTIME_AUTH_FAILED'),
      failure('c2_err500', 'bd46d15f-e32b-4e30-af35-9bf62b82fde9', 'RUNTIME_API_ERROR'),
      failure('d1_noserver', '9b786a90-5835-4bfb-b57e-f7741367462c', 'RUNTIME_PROVIDER_UNAVAILABLE'),
      failure('d2_unauth', 'fa57c1e9-36a1-439f-bf5f-f800f1a3eec5', 'RUNTIME_AUTH_FAILED'),
    ],
    interleaved: [
      {
        name: 'recordings/claude/h3_bad_effort (a stderr warning beside the result)',
        run: () => recordedRun('claude', 'h3_bad_effort'),
        expected: { succeeded: true, failure_code: null, telemetry: A_TEXT_TELEMETRY, session_ref: '4d44b9ca-45ed-4b9e-b08e-b8ef740fc1db', warnings: ['stderr_output'] },
      },
      {
        name: 'a_text result between blank lines, CRLF, with two stderr warnings',
        run: () =>
          recordedRun('claude', 'a_text', {
            stdout: `\r\n\n${recordedRun('claude', 'a_text').stdout.trimEnd()}\r\n\n`,
            stderr: `${EFFORT_WARNING}${EFFORT_WARNING.replace("'ultra'", "'extreme'")}`,
          }),
        expected: { succeeded: true, failure_code: null, telemetry: A_TEXT_TELEMETRY, session_ref: A_TEXT_SESSION, warnings: ['stderr_output'] },
      },
    ],
    truncated: [
      {
        name: 'a_text result cut mid-JSON, exit 0',
        run: () => recordedRun('claude', 'a_text', { stdout: cutMidJson(recordedRun('claude', 'a_text').stdout) }),
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: [] },
      },
      {
        name: 'c1_err401 result cut mid-JSON, exit 1',
        run: () => recordedRun('claude', 'c1_err401', { stdout: cutMidJson(recordedRun('claude', 'c1_err401').stdout) }),
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: [] },
      },
    ],
    cancelled: [
      {
        name: 'SIGTERM after the whole c1_err401 error result was printed',
        run: () => recordedRun('claude', 'c1_err401', { exitCode: null, signal: 'SIGTERM' }),
        expected: { ...failure('c1_err401', '6aedb366-04ee-454f-a644-00a95bc8097e', 'RUNTIME_AUTH_FAILED').expected, failure_code: 'RUNTIME_EXITED_NONZERO' },
      },
      {
        // `--output-format json` prints its one result at the end, so a killed run has only stderr.
        name: 'SIGTERM before the result: stdout empty, the h3 stderr warning already printed',
        run: () => recordedRun('claude', 'h3_bad_effort', { stdout: '', exitCode: null, signal: 'SIGTERM' }),
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: ['stderr_output'] },
      },
      {
        name: 'SIGKILL while printing the a_text result',
        run: () => recordedRun('claude', 'a_text', { stdout: cutMidJson(recordedRun('claude', 'a_text').stdout), exitCode: null, signal: 'SIGKILL' }),
        expected: { succeeded: false, failure_code: 'RUNTIME_EXITED_NONZERO', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: [] },
      },
    ],
    missing_telemetry: [
      {
        name: 'a_text success without usage, total_cost_usd and modelUsage',
        run: () =>
          recordedRun('claude', 'a_text', {
            stdout: aTextWith((result) => {
              delete result.usage;
              delete result.total_cost_usd;
              delete result.modelUsage;
            }),
          }),
        expected: { succeeded: true, failure_code: null, telemetry: UNKNOWN_TELEMETRY, session_ref: A_TEXT_SESSION, warnings: [...UNKNOWN_TELEMETRY_WARNINGS] },
      },
    ],
  },
  readiness: {
    versionLine: '2.1.328 (Claude Code)',
    authPresent: { env: { ANTHROPIC_API_KEY: 'sk-ant-test-dummy', CLAUDE_CODE_OAUTH_TOKEN: 'oauth-dummy' }, sources: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'] },
    authAbsent: { env: { OPENAI_API_KEY: 'sk-openai-dummy', ANTHROPIC_BASE_URL: 'http://127.0.0.1:18080' } },
  },
};
