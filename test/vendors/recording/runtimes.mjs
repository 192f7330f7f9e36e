// How each new runtime is run for the recordings: its environment, argv, home setup, the tool call
// the scripted `edit` scenario makes (in that CLI's own tool names), and its cases.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PROMPT_TEXT = 'Say hello. (fake test prompt)';
export const PROMPT_EDIT = 'Create hello.txt in the repository with a greeting. (fake test prompt)';
const DUMMY_KEY = 'test-dummy-key';
const SERVED_MODEL_SUFFIX = '-served-by-scripted-server';
const HELLO = 'hello from fake model\n';

/** The cases every runtime gets (the `edit` tool call writes `ctx.target`: <repo>/hello.txt, or outside the repo); `extra` adds runtime-specific ones. `approval` is the flag set for edits. */
function commonCases(requestedModel, extra) {
  return [
    { name: 'text', scenario: 'text', full: true, difference: 'scenario text: one streamed text reply' },
    { name: 'edit', scenario: 'edit', full: true, difference: 'scenario edit: one tool call that writes <repo>/hello.txt, then a final text' },
    { name: 'err500', scenario: 'err500', difference: 'every model request answered HTTP 500' },
    { name: 'err401', scenario: 'err401', difference: 'every model request answered HTTP 401 (auth error)' },
    { name: 'cancel_sigterm', scenario: 'hang', cancelSignal: 'SIGTERM', difference: 'the main stream sends one text chunk and is held open; SIGTERM to the process group 2 s later' },
    { name: 'cancel_sigint', scenario: 'hang', cancelSignal: 'SIGINT', difference: 'as cancel_sigterm, with SIGINT' },
    { name: 'model_served_differs', scenario: 'text', servedModel: `${requestedModel}${SERVED_MODEL_SUFFIX}`, difference: `requested ${requestedModel}; the server names itself ${requestedModel}${SERVED_MODEL_SUFFIX} in every reply` },
    { name: 'write_outside_repo', scenario: 'edit', outside: true, difference: 'as edit, but the tool call writes <work>/outside-of-repo.txt, outside the repo (cwd)' },
    ...extra,
  ];
}

/** `--approval-mode X`: the case's choice, else `editMode` for edits and `default` otherwise; none when the case says null. */
function approvalFlag(kase, editMode) {
  if (kase.approval === null) return [];
  return ['--approval-mode', kase.approval ?? (kase.scenario === 'edit' ? editMode : 'default')];
}

const geminiModel = 'gemini-2.5-flash';
const openaiModel = 'fake-coder-1';

export const RUNTIMES = {
  gemini: {
    id: 'gemini',
    env: (ctx) => ({ GEMINI_API_KEY: DUMMY_KEY, GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${ctx.port}` }),
    prepareHome: (ctx, kase) => {
      if (kase.noSettings) return;
      mkdirSync(path.join(ctx.home, '.gemini'), { recursive: true });
      writeFileSync(path.join(ctx.home, '.gemini', 'settings.json'), `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2)}\n`);
    },
    argv: (ctx, kase) => ['gemini', '-p', kase.promptArg ?? '', '-o', 'stream-json', '-m', geminiModel, ...approvalFlag(kase, 'auto_edit'), ...(kase.noTrust ? [] : ['--skip-trust'])],
    stdin: (kase) => (kase.scenario === 'edit' ? PROMPT_EDIT : PROMPT_TEXT),
    toolCall: (ctx) => ({ name: 'write_file', args: { file_path: ctx.target, content: HELLO } }),
    keepFromHome: ['.gemini/tmp/*/chats/*'],
    cases: commonCases(geminiModel, [
      { name: 'prompt_as_arg', scenario: 'text', promptArg: PROMPT_TEXT, stdin: null, difference: 'prompt as the -p value, stdin closed' },
      { name: 'edit_approval_default', scenario: 'edit', approval: 'default', difference: 'scenario edit with --approval-mode default (headless: anything that would ask is denied?)' },
      { name: 'bypass_yolo_flag', scenario: 'edit', approval: null, argvExtra: ['--yolo'], difference: 'scenario edit with --yolo and no --approval-mode (recorded only)' },
      { name: 'bypass_approval_mode_yolo', scenario: 'edit', approval: 'yolo', difference: 'scenario edit with --approval-mode yolo (recorded only)' },
      { name: 'err400_api_key_invalid', scenario: 'err400key', difference: 'every model request answered HTTP 400 INVALID_ARGUMENT API_KEY_INVALID (what the real API answers for a wrong key)' },
      { name: 'untrusted_folder', scenario: 'text', noTrust: true, difference: 'without --skip-trust (the fresh repo is not a trusted folder)' },
      { name: 'no_auth_settings', scenario: 'text', noSettings: true, difference: 'no ~/.gemini/settings.json (security.auth.selectedType unset)' },
    ]),
  },
  opencode: {
    id: 'opencode',
    env: (ctx) => ({ OPENCODE_CONFIG_CONTENT: JSON.stringify(opencodeConfig(ctx.port)) }),
    argv: (ctx, kase) => ['opencode', 'run', '--format', 'json', '-m', `scripted/${openaiModel}`, ...(kase.promptArg ? [kase.promptArg] : [])],
    stdin: (kase) => (kase.scenario === 'edit' ? PROMPT_EDIT : PROMPT_TEXT),
    toolCall: (ctx) => ({ name: 'write', args: { filePath: ctx.target, content: HELLO } }),
    afterRun: (ctx, kase, run) => opencodeExport(ctx, run),
    cases: commonCases(openaiModel, [
      { name: 'prompt_as_arg', scenario: 'text', promptArg: PROMPT_TEXT, stdin: null, difference: 'prompt as the message argument, stdin closed' },
      { name: 'bypass_auto', scenario: 'edit', argvExtra: ['--auto'], difference: 'scenario edit with --auto (recorded only)' },
      { name: 'bypass_yolo', scenario: 'edit', argvExtra: ['--yolo'], difference: 'scenario edit with --yolo, which --help does not list (recorded only)' },
      { name: 'bypass_auto_outside', scenario: 'edit', outside: true, argvExtra: ['--auto'], difference: 'write_outside_repo with --auto (recorded only)' },
      { name: 'bypass_yolo_outside', scenario: 'edit', outside: true, argvExtra: ['--yolo'], difference: 'write_outside_repo with --yolo (recorded only)' },
    ]),
  },
  copilot: {
    id: 'copilot',
    env: (ctx) => ({
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${ctx.port}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: DUMMY_KEY,
      COPILOT_MODEL: openaiModel,
    }),
    argv: (ctx, kase) => [
      'copilot',
      ...(kase.promptArg === null ? [] : ['-p', kase.promptArg ?? (kase.scenario === 'edit' ? PROMPT_EDIT : PROMPT_TEXT)]),
      '--output-format',
      'json',
      ...(kase.noAllowAllTools ? [] : ['--allow-all-tools']),
      '--no-auto-update',
      '--usage-output-file',
      path.join(ctx.work, 'usage.json'),
    ],
    stdin: () => null,
    toolCall: (ctx) => ({ name: 'create', args: { path: ctx.target, file_text: HELLO } }),
    keepFromHome: ['.copilot/session-state/*/events.jsonl'],
    afterRun: (ctx, kase, run) => copyIfPresent(path.join(ctx.work, 'usage.json'), path.join(run.out, 'usage_output.json'), '--usage-output-file'),
    cases: commonCases(openaiModel, [
      { name: 'no_allow_all_tools', scenario: 'text', noAllowAllTools: true, difference: 'without --allow-all-tools' },
      { name: 'prompt_on_stdin', scenario: 'text', promptArg: null, stdin: PROMPT_TEXT, difference: 'no -p; prompt on stdin' },
      { name: 'bypass_allow_all', scenario: 'edit', argvExtra: ['--allow-all'], difference: 'scenario edit with --allow-all (recorded only)' },
      { name: 'bypass_yolo', scenario: 'edit', argvExtra: ['--yolo'], difference: 'scenario edit with --yolo (recorded only)' },
      { name: 'no_allow_all_tools_edit', scenario: 'edit', noAllowAllTools: true, difference: 'scenario edit without --allow-all-tools' },
      { name: 'bypass_allow_all_outside', scenario: 'edit', outside: true, argvExtra: ['--allow-all'], difference: 'write_outside_repo with --allow-all (recorded only)' },
      { name: 'bypass_yolo_outside', scenario: 'edit', outside: true, argvExtra: ['--yolo'], difference: 'write_outside_repo with --yolo (recorded only)' },
      { name: 'not_offline', scenario: 'text', dropEnv: ['COPILOT_OFFLINE'], difference: 'text without COPILOT_OFFLINE (what else it tries to reach)' },
    ]),
  },
  qwen: {
    id: 'qwen',
    env: (ctx) => ({ OPENAI_BASE_URL: `http://127.0.0.1:${ctx.port}/v1`, OPENAI_API_KEY: DUMMY_KEY, OPENAI_MODEL: openaiModel }),
    argv: (ctx, kase) => ['qwen', ...(kase.promptArg === undefined ? [] : ['-p', kase.promptArg]), '--output-format', 'stream-json', ...approvalFlag(kase, 'auto-edit')],
    stdin: (kase) => (kase.scenario === 'edit' ? PROMPT_EDIT : PROMPT_TEXT),
    toolCall: (ctx) => ({ name: 'write_file', args: { file_path: ctx.target, content: HELLO } }),
    // The scripted call goes to the main agent only: Qwen's managed-memory extractor runs after every
    // turn with write_file and run_shell_command of its own (probed by the memory_agent_* cases).
    toolCallMatch: 'You are Qwen Code',
    keepFromHome: ['.qwen/projects/*/chats/*', '.qwen/usage/*', '.qwen/usage_record.jsonl'],
    cases: commonCases(openaiModel, [
      { name: 'edit_approval_default', scenario: 'edit', approval: 'default', difference: 'scenario edit with --approval-mode default' },
      { name: 'prompt_flag_p', scenario: 'text', promptArg: PROMPT_TEXT, stdin: null, difference: 'prompt as the (deprecated) -p value, stdin closed' },
      { name: 'bypass_yolo_flag', scenario: 'edit', approval: null, argvExtra: ['--yolo'], difference: 'scenario edit with --yolo and no --approval-mode (recorded only)' },
      { name: 'bypass_approval_mode_yolo', scenario: 'edit', approval: 'yolo', difference: 'scenario edit with --approval-mode yolo (recorded only)' },
      {
        name: 'memory_agent_shell',
        scenario: 'edit',
        approval: 'default',
        toolCallMatch: 'memory extraction subagent',
        probe: 'memory-agent-ran-shell',
        toolCall: (ctx) => ({ name: 'run_shell_command', args: { command: `touch ${path.join(ctx.work, 'memory-agent-ran-shell')}`, description: 'scripted probe' } }),
        difference: 'text turn in --approval-mode default; the managed-memory extraction request that follows gets run_shell_command `touch <work>/memory-agent-ran-shell`',
      },
      {
        name: 'memory_agent_write_repo',
        scenario: 'edit',
        approval: 'default',
        toolCallMatch: 'memory extraction subagent',
        difference: 'text turn in --approval-mode default; the managed-memory extraction request that follows gets write_file <repo>/hello.txt',
      },
    ]),
  },
};

function opencodeConfig(port) {
  return {
    $schema: 'https://opencode.ai/config.json',
    provider: {
      scripted: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Scripted',
        options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: DUMMY_KEY },
        models: { [openaiModel]: { name: 'Fake Coder 1' } },
      },
    },
    model: `scripted/${openaiModel}`,
    autoupdate: false,
    share: 'disabled',
  };
}

/** `opencode export <sessionID>` for the session the run printed, stored beside the run's output. */
function opencodeExport(ctx, run) {
  const match = run.stdout.match(/"sessionID":"([^"]+)"/);
  if (!match) return ['opencode export: no sessionID in stdout, not run'];
  const r = spawnSync('opencode', ['export', match[1]], { cwd: ctx.repo, env: run.env, encoding: 'utf8', timeout: 60_000 });
  writeFileSync(path.join(run.out, 'opencode_export.json'), r.stdout);
  if (r.stderr) writeFileSync(path.join(run.out, 'opencode_export_stderr.txt'), r.stderr);
  return [`then: opencode export ${match[1]} (same env and cwd) -> opencode_export.json, exit ${r.status}`];
}

function copyIfPresent(from, to, what) {
  if (!existsSync(from)) return [`${what}: no file written`];
  copyFileSync(from, to);
  return [`${what}: ${from} -> ${path.basename(to)}`];
}

// Cases may add flags after the runtime's argv.
for (const runtime of Object.values(RUNTIMES)) {
  const base = runtime.argv;
  runtime.argv = (ctx, kase) => [...base(ctx, kase), ...(kase.argvExtra ?? [])];
}

