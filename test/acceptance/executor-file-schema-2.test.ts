/**
 * Executor file schema 2 (issue 31, item 1): the same five fields, any runtime an executor file
 * may name, each profile checked by its runtime's own descriptor; schema 1 stays exactly as
 * spec/executor-profiles.md freezes it, with the same digests.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { executorSetDigest, profileDigest } from '../../shared/executors/executor-digests';
import {
  EXECUTOR_RUNTIME_IDS,
  EXECUTOR_RUNTIMES,
  executorFileVersionFor,
  ExecutorFileSchema,
  type ExecutorProfileV2,
} from '../../shared/executors/profile-schema';
import { ProfileSetsFileSchema } from '../../shared/executors/profile-sets';
import { parseAnyExecutorFileText, validateAnyExecutorFile, validateExecutorFile } from '../../shared/executors/validate-executor-file';
import type { Violation } from '../../shared/errors';
import { describeExecutorSet } from '../../main/executors/describe-executor-set';
import { openOrchestratorContext } from '../../main/host/open-context';
import { createFork } from '../../main/orchestrator/create-fork';
import { resolveExecutorChoice } from '../../main/orchestrator/executor-choice';
import { claudeAdapter } from '../../main/runtimes/claude/adapter';
import { codexAdapter } from '../../main/runtimes/codex/adapter';
import { BUILTIN_ADAPTERS } from '../../main/runtimes/registry';
import { ForkHarness } from '../support/fork-harness';
import { runCli } from '../support/run-cli';
import { useTempDirs } from '../support/temp-dir';

const tempDir = useTempDirs();
type Json = Record<string, unknown>;

const claudeSonnet = { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: { permission_mode: 'dontAsk', effort: 'high' } };
const codexLocalQwen = { profile_id: 'codex-local-qwen', runtime: 'codex', model: 'qwen3-coder:30b', local_provider: 'ollama', adapter_options: { sandbox: 'workspace-write' } };
const gemini = { profile_id: 'gemini-pro', runtime: 'gemini', model: 'gemini-2.5-pro', local_provider: null, adapter_options: { approval_mode: 'auto_edit' } };
const qwenLocal = { profile_id: 'qwen-local', runtime: 'qwen', model: 'qwen3-coder:30b', local_provider: 'lmstudio', adapter_options: { approval_mode: 'auto-edit' } };
const opencode = { profile_id: 'opencode-ollama', runtime: 'opencode', model: 'qwen3-coder:30b', local_provider: 'ollama', adapter_options: {} };
const copilot = { profile_id: 'copilot', runtime: 'copilot', model: null, local_provider: null, adapter_options: {} };

// The spec example's known digests (test/acceptance/executor-profiles.test.ts computes them independently).
const CLAUDE_SONNET = 'sha256:ee6f6baf07952b7fc5d5a604fb6f34589b9d40d4da489e27be897aeab7fab958';
const CODEX_LOCAL_QWEN = 'sha256:15ad6bf3218e257a1184baf11517462a4356c17302314cf34b89accc0ba49db6';
const SPEC_SET = 'sha256:88f9aadf33670ed217351c5645aff873db3483cc8049cffd5056975b87c62ac7';

const v2 = (...executors: unknown[]): Json => ({ schema_version: 2, executors });
const v1 = (...executors: unknown[]): Json => ({ schema_version: 1, executors });
const withOptions = (profile: Json, adapter_options: Json): Json => ({ ...profile, adapter_options });

function accepted(input: unknown): ExecutorProfileV2[] {
  const result = validateAnyExecutorFile(input);
  if (!result.ok) throw new Error(`expected acceptance, got ${JSON.stringify(result.error.violations)}`);
  return result.value.executors;
}
function violationsOf(input: unknown): Violation[] {
  const result = validateAnyExecutorFile(input);
  if (result.ok) throw new Error('expected the executor file to be rejected');
  expect(result.error.code).toBe('EXECUTOR_FILE_INVALID');
  return [...(result.error.violations ?? [])];
}
const rulesOf = (input: unknown): string[] => violationsOf(input).map((v) => `${v.path} ${v.rule}`);

describe('schema 1 is unchanged', () => {
  it('reads a schema 1 file through the schema 2 entry exactly as the frozen validator does', () => {
    const samples: unknown[] = [
      v1(claudeSonnet, codexLocalQwen),
      v1(codexLocalQwen, claudeSonnet),
      v1(claudeSonnet),
      v1({ ...claudeSonnet, local_provider: 'ollama' }, { ...codexLocalQwen, model: null }),
      v1(withOptions(claudeSonnet, { permission_mode: 'bypassPermissions', sandbox: 'read-only' }), withOptions(codexLocalQwen, { sandbox: 'danger-full-access' })),
      v1(claudeSonnet, gemini),
      v1(withOptions(claudeSonnet, { approval_mode: 'plan' }), codexLocalQwen),
      { ...v1(claudeSonnet, codexLocalQwen), extra: true },
      { ...v1(claudeSonnet, { ...codexLocalQwen, profile_id: 'claude-sonnet' }) },
    ];
    for (const sample of samples) expect(validateAnyExecutorFile(sample)).toEqual(validateExecutorFile(sample));
  });

  it('still refuses claude/codex profiles under schema 1 with the frozen rules, and every runtime of schema 2 there', () => {
    expect(violationsOf(v1({ ...claudeSonnet, local_provider: 'ollama' }, codexLocalQwen))).toEqual([
      { path: '$.executors[0].local_provider', rule: 'provider_requires_codex', message: 'local provider "ollama" is allowed only with the codex runtime' },
    ]);
    for (const profile of [gemini, qwenLocal, opencode, copilot]) expect(rulesOf(v1(claudeSonnet, profile))).toEqual(['$.executors[1].runtime invalid_value']);
  });

  it('names both versions when neither is declared, and checks the profiles by schema 1 rules', () => {
    expect(violationsOf({ ...v1(claudeSonnet, gemini), schema_version: 3 })).toEqual([
      { path: '$.schema_version', rule: 'unsupported_schema_version', message: 'schema_version must be 1 or 2' },
      expect.objectContaining({ path: '$.executors[1].runtime', rule: 'invalid_value' }),
    ]);
    // The frozen entry point takes schema 1 only, as the spec's own tests require.
    const frozen = validateExecutorFile(v2(claudeSonnet, codexLocalQwen));
    expect(!frozen.ok && frozen.error.violations).toEqual([{ path: '$.schema_version', rule: 'unsupported_schema_version', message: 'schema_version must be 1' }]);
    expect(ExecutorFileSchema.safeParse(v2(claudeSonnet, codexLocalQwen)).success).toBe(false);
  });

  it('digests a profile by its five fields only: the same claude/codex profiles digest the same in schema 1 and 2', () => {
    const one = accepted(v1(claudeSonnet, codexLocalQwen));
    const two = accepted(v2(codexLocalQwen, claudeSonnet));
    expect(one.map(profileDigest)).toEqual([CLAUDE_SONNET, CODEX_LOCAL_QWEN]);
    expect(two.map(profileDigest)).toEqual([CODEX_LOCAL_QWEN, CLAUDE_SONNET]);
    expect(executorSetDigest(one)).toBe(SPEC_SET);
    expect(executorSetDigest(two)).toBe(SPEC_SET);
  });

  it('writes a claude/codex set as schema 1, anything else as schema 2', () => {
    expect(executorFileVersionFor([claudeSonnet, codexLocalQwen])).toBe(1);
    expect(executorFileVersionFor([claudeSonnet, gemini])).toBe(2);
    expect(executorFileVersionFor([{ runtime: 'conformance-echo' }, claudeSonnet])).toBe(2);
  });
});

describe('schema 2: every runtime with its own strict options', () => {
  it('lists exactly the six runtimes', () => {
    expect(EXECUTOR_RUNTIME_IDS).toEqual(['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen']);
  });

  it('accepts a file holding one profile of each runtime, returned unchanged', () => {
    const profiles = [claudeSonnet, codexLocalQwen, gemini, qwenLocal, opencode, copilot];
    expect(accepted(v2(...profiles))).toEqual(profiles);
  });

  it('accepts every allowed value of every option, and the empty options object, for every runtime', () => {
    for (const runtime of EXECUTOR_RUNTIMES) {
      const base = { profile_id: 'p', runtime: runtime.id, model: null, local_provider: null, adapter_options: {} };
      accepted(v2(base, copilot));
      for (const [option, schema] of Object.entries(runtime.options.shape)) {
        const values = (schema as unknown as { unwrap(): { options: string[] } }).unwrap().options;
        expect(values.length, `${runtime.id}.${option}`).toBeGreaterThan(0);
        for (const value of values) accepted(v2(withOptions(base, { [option]: value }), copilot));
      }
    }
  });

  it('offers Gemini and Qwen their approval modes, each in its own CLI spelling', () => {
    for (const mode of ['default', 'auto_edit', 'plan']) accepted(v2(withOptions(gemini, { approval_mode: mode }), copilot));
    for (const mode of ['plan', 'default', 'auto-edit']) accepted(v2(withOptions(qwenLocal, { approval_mode: mode }), copilot));
    expect(rulesOf(v2(withOptions(gemini, { approval_mode: 'auto-edit' }), copilot))).toEqual(['$.executors[0].adapter_options.approval_mode invalid_value']);
    expect(rulesOf(v2(withOptions(qwenLocal, { approval_mode: 'auto_edit' }), copilot))).toEqual(['$.executors[0].adapter_options.approval_mode invalid_value']);
    // Qwen's classifier mode is not offered (yet): an invalid value, not a forbidden one.
    expect(rulesOf(v2(withOptions(qwenLocal, { approval_mode: 'auto' }), copilot))).toEqual(['$.executors[0].adapter_options.approval_mode invalid_value']);
  });

  it('keeps the model grammar: a provider/model id is refused in every runtime', () => {
    for (const profile of [gemini, qwenLocal, opencode, copilot]) {
      expect(rulesOf(v2(claudeSonnet, { ...profile, model: 'ollama/qwen3' }))).toEqual(['$.executors[1].model pattern_mismatch']);
    }
  });

  it('refuses an unknown runtime, unknown profile fields and duplicate ids as schema 1 does', () => {
    expect(rulesOf(v2(claudeSonnet, { ...gemini, runtime: 'conformance-echo' }))).toEqual(['$.executors[1].runtime invalid_value']);
    expect(rulesOf(v2(claudeSonnet, { ...gemini, args: ['--yolo'] }))).toEqual(['$.executors[1].args unknown_field']);
    expect(rulesOf(v2(gemini, { ...qwenLocal, profile_id: 'gemini-pro' }))).toEqual(['$.executors[1].profile_id duplicate_profile_id']);
    expect(rulesOf(v2(gemini))).toEqual(['$.executors too_few_profiles']);
  });
});

describe('schema 2: approvals and sandboxes are never bypassed', () => {
  it('refuses each runtime\'s bypass values as forbidden, at their path, with the reason', () => {
    const cases: [Json, string, string][] = [
      [withOptions(gemini, { approval_mode: 'yolo' }), 'approval_mode', '"yolo" is refused: it approves every tool call without asking'],
      [withOptions(qwenLocal, { approval_mode: 'yolo' }), 'approval_mode', '"yolo" is refused: it approves every tool call without asking'],
      [withOptions(claudeSonnet, { permission_mode: 'bypassPermissions' }), 'permission_mode', '"bypassPermissions" is refused: it weakens the executor safety boundary'],
      [withOptions(codexLocalQwen, { sandbox: 'danger-full-access' }), 'sandbox', '"danger-full-access" is refused: it weakens the executor safety boundary'],
    ];
    for (const [profile, option, message] of cases) {
      expect(violationsOf(v2(copilot, profile))).toEqual([
        { path: `$.executors[1].adapter_options.${option}`, rule: 'forbidden_value', message: expect.stringContaining(message) as string },
      ]);
    }
  });

  it('has no runtime accept a value it refuses, and refuses nothing it does not advertise as an option', () => {
    for (const runtime of EXECUTOR_RUNTIMES) {
      for (const [option, values] of Object.entries(runtime.forbiddenValues)) {
        expect(Object.hasOwn(runtime.options.shape, option), `${runtime.id}.${option}`).toBe(true);
        for (const value of Object.keys(values)) expect(runtime.options.safeParse({ [option]: value }).success, `${runtime.id} ${option}=${value}`).toBe(false);
      }
    }
  });

  it('takes no approval switch as an option of OpenCode or Copilot', () => {
    for (const profile of [opencode, copilot]) {
      for (const key of ['yolo', 'auto', 'allow_all', 'allow_all_tools', 'allow_all_paths', 'approval_mode']) {
        const rule = key === 'approval_mode' ? 'option_for_other_runtime' : 'unknown_field';
        expect(rulesOf(v2(claudeSonnet, withOptions(profile, { [key]: true })))).toEqual([`$.executors[1].adapter_options.${key} ${rule}`]);
      }
    }
  });

  it('refuses the options of another runtime, naming every runtime that owns one', () => {
    expect(violationsOf(v2(withOptions(claudeSonnet, { approval_mode: 'plan' }), copilot))).toEqual([
      { path: '$.executors[0].adapter_options.approval_mode', rule: 'option_for_other_runtime', message: '"approval_mode" is a gemini and qwen option; it is not accepted for the claude runtime' },
    ]);
    expect(rulesOf(v2(withOptions(gemini, { sandbox: 'read-only' }), copilot))).toEqual(['$.executors[0].adapter_options.sandbox option_for_other_runtime']);
    expect(rulesOf(v2(withOptions(qwenLocal, { permission_mode: 'plan' }), copilot))).toEqual(['$.executors[0].adapter_options.permission_mode option_for_other_runtime']);
    // Inherited names are nobody's option.
    expect(rulesOf(v2(withOptions(gemini, { toString: 'x' }), copilot))).toEqual(['$.executors[0].adapter_options.toString unknown_field']);
  });
});

describe('schema 2: local providers only where a runtime declares them', () => {
  it('allows ollama and lmstudio, with an explicit model, for codex, opencode, copilot and qwen', () => {
    for (const runtime of ['codex', 'opencode', 'copilot', 'qwen']) {
      for (const provider of ['ollama', 'lmstudio']) {
        const profile = { profile_id: 'local', runtime, model: 'qwen3-coder:30b', local_provider: provider, adapter_options: {} };
        accepted(v2(gemini, profile));
        expect(rulesOf(v2(gemini, { ...profile, model: null }))).toEqual(['$.executors[1].model provider_requires_model']);
      }
    }
  });

  it('refuses a local provider for gemini and claude, saying which runtimes have one', () => {
    for (const profile of [gemini, claudeSonnet]) {
      expect(violationsOf(v2(copilot, { ...profile, local_provider: 'ollama' }))).toEqual([
        {
          path: '$.executors[1].local_provider',
          rule: 'provider_not_supported',
          message: `local provider "ollama" is not available with the ${profile.runtime} runtime; runtimes with a local provider: codex, opencode, copilot, qwen`,
        },
      ]);
    }
    expect(rulesOf(v2(copilot, { ...gemini, local_provider: 'lmstudio', model: null }))).toEqual([
      '$.executors[1].local_provider provider_not_supported',
      '$.executors[1].model provider_requires_model',
    ]);
    expect(rulesOf(v2(copilot, { ...qwenLocal, local_provider: 'vllm' }))).toEqual(['$.executors[1].local_provider invalid_value']);
  });
});

describe('schema 2 through every input path', () => {
  it('New Fork: profiles of a newer runtime are checked as schema 2, at their path in the request', () => {
    expect(() => resolveExecutorChoice({ kind: 'executors', profiles: [claudeSonnet, withOptions(gemini, { approval_mode: 'yolo' })] as ExecutorProfileV2[] })).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_FILE_INVALID', violations: [expect.objectContaining({ path: '$.executors.profiles[1].adapter_options.approval_mode', rule: 'forbidden_value' })] }),
    );
    expect(resolveExecutorChoice({ kind: 'executors', profiles: [claudeSonnet, gemini] as ExecutorProfileV2[] }).profiles).toEqual([claudeSonnet, gemini]);
    // A claude/codex choice is still schema 1's, with its frozen rules.
    expect(() => resolveExecutorChoice({ kind: 'executors', profiles: [{ ...claudeSonnet, local_provider: 'ollama' }, codexLocalQwen] as ExecutorProfileV2[] })).toThrow(
      expect.objectContaining({ violations: [expect.objectContaining({ rule: 'provider_requires_codex' })] }),
    );
  });

  it('saved profile sets hold schema 2 files', () => {
    const sets = { schema_version: 1, sets: [{ name: 'all six', saved_at: '2026-12-06T04:00:00.000Z', file: v2(claudeSonnet, codexLocalQwen, gemini, qwenLocal, opencode, copilot) }] };
    expect(ProfileSetsFileSchema.safeParse(sets).success).toBe(true);
    const bypass = structuredClone(sets);
    bypass.sets[0]!.file = v2(claudeSonnet, withOptions(gemini, { approval_mode: 'yolo' }));
    expect(ProfileSetsFileSchema.safeParse(bypass).success).toBe(false);
  });

  it('a runtime with no registered adapter validates as a file, but cannot be described or started', async () => {
    const onlyBuiltIn = { claude: claudeAdapter, codex: codexAdapter };
    const file = accepted(v2(claudeSonnet, gemini));
    expect(() => describeExecutorSet(file, onlyBuiltIn, 'contained')).toThrow(expect.objectContaining({ code: 'RUNTIME_UNKNOWN', message: 'no adapter is registered for runtime "gemini"' }));

    const h = new ForkHarness(tempDir('citadel-schema2-'));
    const ctx = await openOrchestratorContext({ env: h.env({ CITADEL_KEYSTORE: 'file' }), adapters: onlyBuiltIn });
    await expect(createFork(ctx, { objective: 'Fix the sum function', executors: { kind: 'executors', profiles: file }, repo: h.repo, workflowFile: h.workflowFile })).rejects.toMatchObject({
      code: 'RUNTIME_UNKNOWN',
    });
    expect(await ctx.store.listForkIds()).toEqual([]);
  });

  it('every registered adapter checks its profiles with its runtime\'s shared descriptor', () => {
    for (const [id, adapter] of Object.entries(BUILTIN_ADAPTERS)) {
      const runtime = EXECUTOR_RUNTIMES.find((r) => r.id === id);
      expect(runtime, id).toBeDefined();
      expect(adapter.id).toBe(id);
      expect(adapter.profileSchema).toBe(runtime?.profileSchema);
    }
  });

  it('parses schema 2 text with the same text checks as schema 1', () => {
    expect(parseAnyExecutorFileText(JSON.stringify(v2(gemini, qwenLocal))).ok).toBe(true);
    const duplicated = JSON.stringify(v2(gemini, qwenLocal)).replace('"runtime":"gemini"', '"runtime":"gemini","runtime":"claude"');
    const result = parseAnyExecutorFileText(duplicated);
    expect(!result.ok && result.error.violations?.map((v) => v.rule)).toEqual(['duplicate_key']);
  });
});

describe('CLI (real child process)', () => {
  it('executors validate: a schema 2 claude/codex file prints the schema 1 digests and argv', async () => {
    const dir = tempDir();
    const one = path.join(dir, 'one.json');
    const two = path.join(dir, 'two.json');
    writeFileSync(one, JSON.stringify(v1(claudeSonnet, codexLocalQwen)));
    writeFileSync(two, JSON.stringify(v2(codexLocalQwen, claudeSonnet)));
    const [runOne, runTwo] = [await runCli(['executors', 'validate', one, '--json']), await runCli(['executors', 'validate', two, '--json'])];
    expect(runTwo.code, runTwo.stdout + runTwo.stderr).toBe(0);
    expect(runTwo.stdout).toBe(runOne.stdout);
    expect(JSON.parse(runTwo.stdout)).toMatchObject({ executor_set_digest: SPEC_SET, profiles: [{ profile_digest: CLAUDE_SONNET }, { profile_digest: CODEX_LOCAL_QWEN }] });
  });

  it('executors validate: a bypass value in a schema 2 file exits 1 with its path', async () => {
    const file = path.join(tempDir(), 'yolo.json');
    writeFileSync(file, JSON.stringify(v2(claudeSonnet, withOptions(qwenLocal, { approval_mode: 'yolo' }), { ...gemini, local_provider: 'ollama' })));
    const run = await runCli(['executors', 'validate', file, '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      error: {
        code: 'EXECUTOR_FILE_INVALID',
        violations: [
          { path: '$.executors[1].adapter_options.approval_mode', rule: 'forbidden_value' },
          { path: '$.executors[2].local_provider', rule: 'provider_not_supported' },
        ],
      },
    });
  });

  it('fork start --executors: a bypass value is refused before any state exists', async () => {
    const h = new ForkHarness(tempDir('citadel-schema2-'));
    const file = path.join(h.base, 'executors.json');
    writeFileSync(file, JSON.stringify(v2(claudeSonnet, withOptions(gemini, { approval_mode: 'yolo' }))));
    const run = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--executors', file, '--workflow', h.workflowFile, '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'EXECUTOR_FILE_INVALID', violations: [{ path: '$.executors[1].adapter_options.approval_mode', rule: 'forbidden_value' }] } });
    expect(existsSync(h.root) ? readdirSync(h.root) : []).toEqual([]);
    expect(h.gitIn(h.repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });
});
