import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copilotAdapter } from '../../../main/runtimes/copilot/adapter';
import type { FinishedRun } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import { UNKNOWN_TELEMETRY } from '../../../shared/runtime/telemetry';
import type { ArgvRow, ConformanceCase } from './conformance-case';
import { cutMidJson } from './recorded';

/**
 * GitHub Copilot CLI 1.0.102 (recordings/copilot, real output against a scripted server). Its
 * events name only the requested model, so no transcript observes one: the model is the wire's to
 * prove. Tokens come from the session's events.jsonl under COPILOT_HOME, put back here from the
 * recording's copied home; without it they stay unknown.
 */

const RECORDINGS = fileURLToPath(new URL('../../fixtures/recordings/copilot/', import.meta.url));
const MODEL = 'gpt-4.1-mini';
const BASE = ['copilot', '--output-format', 'json', '--allow-all-tools', '--no-auto-update'];
const argv: ArgvRow[] = [
  { options: { model: null, local_provider: null, adapter_options: {} }, argv: BASE },
  { options: { model: MODEL, local_provider: null, adapter_options: {} }, argv: [...BASE, '--model', MODEL] },
  { options: { model: MODEL, local_provider: 'ollama', adapter_options: {} }, argv: [...BASE, '--model', MODEL] },
  { options: { model: MODEL, local_provider: 'lmstudio', adapter_options: {} }, argv: [...BASE, '--model', MODEL] },
];

/** A recorded run as the supervisor would hand it over; `exit_code.txt` is a number or `signal NAME`. */
function recording(name: string, overrides: Partial<FinishedRun> = {}): FinishedRun {
  const dir = path.join(RECORDINGS, name);
  const exit = readFileSync(path.join(dir, 'exit_code.txt'), 'utf8').trim();
  const signal = /^signal (\w+)$/.exec(exit)?.[1] ?? null;
  return {
    stdout: readFileSync(path.join(dir, 'stdout.jsonl'), 'utf8'),
    stderr: readFileSync(path.join(dir, 'stderr.txt'), 'utf8'),
    exitCode: signal === null ? Number(exit) : null,
    signal,
    worktree: '/nonexistent/worktree',
    env: {},
    ...overrides,
  };
}

/** The recording with its session's events.jsonl back under a fresh COPILOT_HOME in scratch. */
async function withSession(scratch: string, name: string, overrides: Partial<FinishedRun> = {}): Promise<FinishedRun> {
  const recorded = path.join(RECORDINGS, name, 'home', '.copilot', 'session-state');
  const copilotHome = path.join(scratch, 'copilot-home');
  for (const session of await readdir(recorded)) {
    await mkdir(path.join(copilotHome, 'session-state', session), { recursive: true });
    await copyFile(path.join(recorded, session, 'events.jsonl'), path.join(copilotHome, 'session-state', session, 'events.jsonl'));
  }
  return recording(name, { env: { COPILOT_HOME: copilotHome }, ...overrides });
}

const SESSION = {
  text: 'c250b368-11d8-4dc8-990c-6dd7f7021606',
  edit: '73ff68c6-1d3f-4159-bf45-6ffb29bfb3c5',
  err401: '4fda72b8-16c4-4b98-b161-9595d8dcc304',
  err500: '20eef9db-9879-480b-87fa-c458bbb4252c',
  cancel_sigint: '84354748-8851-460e-9594-69e6d89ffd9b',
  write_outside_repo: 'ecc3dc00-b185-4c1b-ac38-ec33758b5d67',
} as const;

const lines = (name: string): string[] => recording(name).stdout.trimEnd().split('\n');
const tokens = (input: number, output: number) => ({ ...UNKNOWN_TELEMETRY, input_tokens: input, output_tokens: output });

export const copilotCase: ConformanceCase = {
  runtime: 'copilot',
  adapter: copilotAdapter,
  models: [null, MODEL],
  argv,
  transcripts: {
    success: [
      {
        name: 'recordings/copilot/text with its session state',
        run: (scratch) => withSession(scratch, 'text'),
        expected: { succeeded: true, failure_code: null, telemetry: tokens(321, 54), session_ref: SESSION.text, warnings: ['observed_model_missing'] },
      },
      {
        name: 'recordings/copilot/edit (create tool, two requests) with its session state',
        run: (scratch) => withSession(scratch, 'edit'),
        expected: { succeeded: true, failure_code: null, telemetry: tokens(642, 108), session_ref: SESSION.edit, warnings: ['observed_model_missing'] },
      },
    ],
    failure: [
      {
        name: 'recordings/copilot/err401 (session.error authentication, exit 1) with its session state',
        run: (scratch) => withSession(scratch, 'err401'),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_AUTH_FAILED',
          telemetry: UNKNOWN_TELEMETRY,
          session_ref: SESSION.err401,
          warnings: ['nonfatal_runtime_errors', 'observed_model_missing', 'tokens_missing'],
        },
      },
      {
        name: 'recordings/copilot/err500 (session.error query, exit 1) without a COPILOT_HOME',
        run: () => recording('err500'),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_API_ERROR',
          telemetry: UNKNOWN_TELEMETRY,
          session_ref: SESSION.err500,
          warnings: ['nonfatal_runtime_errors', 'observed_model_missing', 'tokens_missing'],
        },
      },
    ],
    interleaved: [
      {
        name: 'write_outside_repo (a denied create) with an err500 retry before its first turn and stderr noise, with its session state',
        run: async (scratch) => {
          const recorded = lines('write_outside_repo');
          const failure = lines('err500').filter((line) => line.includes('"model.call_failure"') || line.includes('"model_retry"')).slice(0, 2);
          const turnStart = recorded.findIndex((line) => line.includes('"assistant.turn_start"'));
          const stdout = `${[...recorded.slice(0, turnStart + 1), ...failure, ...recorded.slice(turnStart + 1)].join('\n')}\n`;
          return withSession(scratch, 'write_outside_repo', { stdout, stderr: 'Ripgrep is not available; falling back.\n' });
        },
        expected: {
          succeeded: true,
          failure_code: null,
          telemetry: tokens(642, 108),
          session_ref: SESSION.write_outside_repo,
          warnings: ['stderr_output', 'permission_denials', 'nonfatal_runtime_errors', 'observed_model_missing'],
        },
      },
    ],
    truncated: [
      {
        name: 'text cut mid-JSON in its assistant.message, before the result line, exit 0',
        run: () => {
          const recorded = lines('text');
          const message = recorded.findIndex((line) => line.includes('"type":"assistant.message"'));
          return recording('text', { stdout: `${recorded.slice(0, message).join('\n')}\n${cutMidJson(recorded[message]!)}` });
        },
        expected: { succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: ['observed_model_missing', 'tokens_missing'] },
      },
    ],
    cancelled: [
      {
        name: 'recordings/copilot/cancel_sigterm (abort events, no result, killed by SIGTERM)',
        run: (scratch) => withSession(scratch, 'cancel_sigterm'),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_EXITED_NONZERO',
          telemetry: UNKNOWN_TELEMETRY,
          session_ref: null,
          warnings: ['stderr_output', 'observed_model_missing', 'tokens_missing'],
        },
      },
      {
        // The native child printed result{exitCode:0} while the process died of SIGINT: the signal decides.
        name: 'recordings/copilot/cancel_sigint (result exitCode 0, killed by SIGINT) with its session state',
        run: (scratch) => withSession(scratch, 'cancel_sigint'),
        expected: {
          succeeded: false,
          failure_code: 'RUNTIME_EXITED_NONZERO',
          telemetry: UNKNOWN_TELEMETRY,
          session_ref: SESSION.cancel_sigint,
          warnings: ['observed_model_missing', 'tokens_missing'],
        },
      },
    ],
    missing_telemetry: [
      {
        name: 'recordings/copilot/text without a COPILOT_HOME or HOME to find its session in',
        run: () => recording('text'),
        expected: { succeeded: true, failure_code: null, telemetry: UNKNOWN_TELEMETRY, session_ref: SESSION.text, warnings: ['observed_model_missing', 'tokens_missing'] },
      },
    ],
  },
  readiness: {
    versionLine: 'GitHub Copilot CLI 1.0.102.',
    authPresent: { env: { COPILOT_PROVIDER_API_KEY: 'sk-proj-dummy' }, sources: ['COPILOT_PROVIDER_API_KEY'] },
    // A GitHub login is not a BYOK provider key: it must not count.
    authAbsent: { env: { ANTHROPIC_API_KEY: 'sk-ant-test-dummy', GH_TOKEN: 'ghp_dummy', COPILOT_GITHUB_TOKEN: 'ghp_dummy' } },
  },
};
