/**
 * The executable form of spec/executor-profiles.md (schema 1 executor files), decisions D3-D5
 * and D13 for `citadel executors validate`.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestOf, sha256Digest } from '../../shared/digest';
import { canonicalJson } from '../../shared/canonical-json';
import { executorSetDigest, profileDigest } from '../../shared/executors/executor-digests';
import { synthesizeLegacyProfiles } from '../../shared/executors/legacy-runtimes';
import {
  CLAUDE_EFFORTS,
  CLAUDE_PERMISSION_MODES,
  CODEX_SANDBOXES,
  type ExecutorProfile,
} from '../../shared/executors/profile-schema';
import { parseExecutorFileText, validateExecutorFile } from '../../shared/executors/validate-executor-file';
import type { CitadelError, Violation } from '../../shared/errors';
import { describeExecutorSet } from '../../main/executors/describe-executor-set';
import { loadExecutorFile } from '../../main/executors/load-executor-file';
import { CLAUDE_ALLOWED_TOOLS, CLAUDE_CONTAINED_EDIT_TOOLS_LIST, CLAUDE_DISALLOWED_TOOLS } from '../../main/runtimes/claude/tool-policy';
import { adapterFor, BUILTIN_ADAPTERS } from '../../main/runtimes/registry';
import { resolveExecutable } from '../../main/runtimes/resolve-executable';
import { executorSelectionFrom } from '../../main/cli/commands/fork/executor-selection';
import { REPO_ROOT, runCli } from '../support/run-cli';
import { useTempDirs } from '../support/temp-dir';

const claudeSonnet = {
  profile_id: 'claude-sonnet',
  runtime: 'claude',
  model: 'claude-sonnet-4-5',
  local_provider: null,
  adapter_options: { permission_mode: 'dontAsk', effort: 'high' },
} as const;
const codexLocalQwen = {
  profile_id: 'codex-local-qwen',
  runtime: 'codex',
  model: 'qwen3-coder:30b',
  local_provider: 'ollama',
  adapter_options: { sandbox: 'workspace-write' },
} as const;
const specFile = { schema_version: 1, executors: [claudeSonnet, codexLocalQwen] };

const clone = <T>(value: T): T => structuredClone(value) as T;
type Json = Record<string, unknown>;

function fileWith(...executors: unknown[]): Json {
  return { schema_version: 1, executors };
}
function profile(overrides: Json = {}, base: Json = clone(codexLocalQwen) as unknown as Json): Json {
  return { ...base, ...overrides };
}
function violationsOf(input: unknown): Violation[] {
  const result = validateExecutorFile(input);
  if (result.ok) throw new Error('expected the executor file to be rejected');
  expect(result.error.code).toBe('EXECUTOR_FILE_INVALID');
  return [...(result.error.violations ?? [])];
}
function rulesOf(input: unknown): string[] {
  return violationsOf(input).map((v) => `${v.path} ${v.rule}`);
}
function accepted(input: unknown): ExecutorProfile[] {
  const result = validateExecutorFile(input);
  if (!result.ok) throw new Error(`expected acceptance, got ${JSON.stringify(result.error.violations)}`);
  return result.value.executors;
}

describe('executor file: strict fields', () => {
  it('accepts the spec example', () => {
    expect(accepted(specFile)).toEqual(specFile.executors);
  });

  it('requires exactly the two top-level fields', () => {
    expect(rulesOf({ ...specFile, extra: true })).toEqual(['$.extra unknown_field']);
    expect(rulesOf({ executors: specFile.executors })).toEqual(['$.schema_version missing_field']);
    expect(rulesOf({ schema_version: 1 })).toEqual(['$.executors missing_field']);
    expect(rulesOf({ ...specFile, schema_version: 2 })).toEqual(['$.schema_version unsupported_schema_version']);
    expect(rulesOf({ ...specFile, schema_version: '1' })).toEqual(['$.schema_version unsupported_schema_version']);
    expect(rulesOf({ schema_version: 1, executors: {} })).toEqual(['$.executors wrong_type']);
    expect(rulesOf([specFile])).toEqual(['$ wrong_type']);
    expect(rulesOf(null)).toEqual(['$ wrong_type']);
  });

  it('requires exactly the five profile fields, none missing, none extra', () => {
    for (const field of ['profile_id', 'runtime', 'model', 'local_provider', 'adapter_options']) {
      const p = profile();
      delete p[field];
      expect(rulesOf(fileWith(claudeSonnet, p))).toEqual([`$.executors[1].${field} missing_field`]);
    }
    expect(rulesOf(fileWith(claudeSonnet, profile({ executable: '/bin/sh' })))).toEqual(['$.executors[1].executable unknown_field']);
    for (const field of ['args', 'env', 'command', 'hooks', 'verifier', 'cwd']) {
      expect(rulesOf(fileWith(claudeSonnet, profile({ [field]: 'x' })))).toEqual([`$.executors[1].${field} unknown_field`]);
    }
  });

  it('rejects wrong types with the field path', () => {
    expect(rulesOf(fileWith(claudeSonnet, profile({ model: 7 })))).toEqual(['$.executors[1].model wrong_type']);
    expect(rulesOf(fileWith(claudeSonnet, profile({ adapter_options: [] })))).toEqual(['$.executors[1].adapter_options wrong_type']);
    expect(rulesOf(fileWith(claudeSonnet, 'codex'))).toEqual(['$.executors[1] wrong_type']);
  });

  it('requires at least two profiles', () => {
    expect(rulesOf(fileWith(claudeSonnet))).toEqual(['$.executors too_few_profiles']);
    expect(rulesOf(fileWith())).toEqual(['$.executors too_few_profiles']);
  });

  it('enforces the profile_id grammar', () => {
    const ok = ['a', 'a-1', 'codex-sonnet', `a${'b'.repeat(47)}`];
    const bad = ['', 'A', '1abc', '-a', 'a_b', 'a.b', `a${'b'.repeat(48)}`, 'abc\n', 'ä'];
    for (const id of ok) accepted(fileWith(claudeSonnet, profile({ profile_id: id })));
    for (const id of bad) expect(rulesOf(fileWith(claudeSonnet, profile({ profile_id: id })))).toEqual(['$.executors[1].profile_id pattern_mismatch']);
  });

  it('enforces the public-safe model grammar', () => {
    const ok = ['m', 'qwen3-coder:30b', 'claude-sonnet-4-5@2025', 'a.b_c:d@e-f', `a${'b'.repeat(127)}`];
    const bad = ['', '-m', '.m', 'qwen/qwen3', 'a b', `a${'b'.repeat(128)}`, 'model\n', '$(id)', 'm;rm'];
    for (const model of ok) accepted(fileWith(claudeSonnet, profile({ model })));
    for (const model of bad) expect(rulesOf(fileWith(claudeSonnet, profile({ model })))).toEqual(['$.executors[1].model pattern_mismatch']);
  });
});

describe('executor file: IDs, runtimes and providers', () => {
  it('rejects duplicate profile IDs, naming the first use', () => {
    const violations = violationsOf(fileWith(claudeSonnet, codexLocalQwen, profile({ profile_id: 'claude-sonnet' })));
    expect(violations).toEqual([
      { path: '$.executors[2].profile_id', rule: 'duplicate_profile_id', message: 'profile_id "claude-sonnet" is already used by $.executors[0]' },
    ]);
  });

  it('accepts several profiles on the same runtime', () => {
    const a = profile({ profile_id: 'codex-a', model: 'gpt-5.1-codex', local_provider: null });
    const b = profile({ profile_id: 'codex-b' });
    const c = profile({ profile_id: 'codex-c', local_provider: 'lmstudio', adapter_options: {} });
    expect(accepted(fileWith(a, b, c)).map((p) => p.profile_id)).toEqual(['codex-a', 'codex-b', 'codex-c']);
    const claudeA = { ...claudeSonnet, profile_id: 'claude-a' };
    const claudeB = { ...claudeSonnet, profile_id: 'claude-b', model: null, adapter_options: {} };
    accepted(fileWith(claudeA, claudeB));
  });

  it('accepts only the claude and codex runtimes', () => {
    for (const runtime of ['gemini', 'Claude', '', null, 1]) {
      expect(rulesOf(fileWith(claudeSonnet, profile({ runtime })))).toEqual(['$.executors[1].runtime ' + (typeof runtime === 'string' ? 'invalid_value' : 'invalid_value')]);
    }
  });

  it('allows ollama and lmstudio only with codex and an explicit model', () => {
    for (const provider of ['ollama', 'lmstudio']) {
      accepted(fileWith(claudeSonnet, profile({ local_provider: provider })));
      expect(rulesOf(fileWith(claudeSonnet, profile({ local_provider: provider, model: null })))).toEqual(['$.executors[1].model provider_requires_model']);
      expect(rulesOf(fileWith({ ...claudeSonnet, local_provider: provider }, codexLocalQwen))).toEqual([
        '$.executors[0].local_provider provider_requires_codex',
      ]);
    }
    expect(rulesOf(fileWith(claudeSonnet, profile({ local_provider: 'vllm' })))).toEqual(['$.executors[1].local_provider invalid_value']);
    expect(rulesOf(fileWith({ ...claudeSonnet, local_provider: 'vllm' }, codexLocalQwen))).toEqual(['$.executors[0].local_provider invalid_value']);
    accepted(fileWith(claudeSonnet, profile({ local_provider: null, model: null })));
  });
});

describe('executor file: runtime options', () => {
  it('accepts every allowed claude option value, and the empty object', () => {
    for (const permission_mode of CLAUDE_PERMISSION_MODES) accepted(fileWith({ ...claudeSonnet, adapter_options: { permission_mode } }, codexLocalQwen));
    for (const effort of CLAUDE_EFFORTS) accepted(fileWith({ ...claudeSonnet, adapter_options: { effort } }, codexLocalQwen));
    accepted(fileWith({ ...claudeSonnet, adapter_options: {} }, codexLocalQwen));
  });

  it('accepts every allowed codex option value, and the empty object', () => {
    for (const sandbox of CODEX_SANDBOXES) accepted(fileWith(claudeSonnet, profile({ adapter_options: { sandbox } })));
    accepted(fileWith(claudeSonnet, profile({ adapter_options: {} })));
  });

  it('refuses bypassPermissions and danger-full-access as forbidden values', () => {
    expect(violationsOf(fileWith({ ...claudeSonnet, adapter_options: { permission_mode: 'bypassPermissions' } }, codexLocalQwen))).toEqual([
      expect.objectContaining({ path: '$.executors[0].adapter_options.permission_mode', rule: 'forbidden_value' }),
    ]);
    expect(rulesOf(fileWith(claudeSonnet, profile({ adapter_options: { sandbox: 'danger-full-access' } })))).toEqual([
      '$.executors[1].adapter_options.sandbox forbidden_value',
    ]);
  });

  it('rejects invalid values, unknown keys and options of the other runtime', () => {
    expect(rulesOf(fileWith({ ...claudeSonnet, adapter_options: { effort: 'ultra' } }, codexLocalQwen))).toEqual([
      '$.executors[0].adapter_options.effort invalid_value',
    ]);
    expect(rulesOf(fileWith({ ...claudeSonnet, adapter_options: { permission_mode: 'yolo' } }, codexLocalQwen))).toEqual([
      '$.executors[0].adapter_options.permission_mode invalid_value',
    ]);
    expect(rulesOf(fileWith(claudeSonnet, profile({ adapter_options: { sandbox: 'yolo' } })))).toEqual(['$.executors[1].adapter_options.sandbox invalid_value']);
    expect(rulesOf(fileWith({ ...claudeSonnet, adapter_options: { sandbox: 'read-only' } }, codexLocalQwen))).toEqual([
      '$.executors[0].adapter_options.sandbox option_for_other_runtime',
    ]);
    expect(rulesOf(fileWith(claudeSonnet, profile({ adapter_options: { effort: 'high' } })))).toEqual([
      '$.executors[1].adapter_options.effort option_for_other_runtime',
    ]);
    expect(rulesOf(fileWith(claudeSonnet, profile({ adapter_options: { approval_policy: 'never' } })))).toEqual([
      '$.executors[1].adapter_options.approval_policy unknown_field',
    ]);
    expect(rulesOf(fileWith({ ...claudeSonnet, adapter_options: { permission_mode: 'acceptEdits', allowedTools: 'Write' } }, codexLocalQwen))).toEqual([
      '$.executors[0].adapter_options.allowedTools unknown_field',
    ]);
  });

  it('reports every violation at once, in file order', () => {
    const input = {
      schema_version: 2,
      extra: 1,
      executors: [
        { ...claudeSonnet, local_provider: 'ollama', adapter_options: { permission_mode: 'bypassPermissions', sandbox: 'read-only' } },
        { ...codexLocalQwen, profile_id: 'Bad', model: null, adapter_options: { sandbox: 'danger-full-access' } },
        { ...codexLocalQwen, profile_id: 'claude-sonnet', shell: 'bash' },
      ],
    };
    expect(rulesOf(input)).toEqual([
      '$.extra unknown_field',
      '$.schema_version unsupported_schema_version',
      '$.executors[0].adapter_options.permission_mode forbidden_value',
      '$.executors[0].adapter_options.sandbox option_for_other_runtime',
      '$.executors[0].local_provider provider_requires_codex',
      '$.executors[1].profile_id pattern_mismatch',
      '$.executors[1].adapter_options.sandbox forbidden_value',
      '$.executors[1].model provider_requires_model',
      '$.executors[2].shell unknown_field',
      '$.executors[2].profile_id duplicate_profile_id',
    ]);
  });
});

describe('executor file: hostile text', () => {
  const rule = (text: string): string[] => {
    const result = parseExecutorFileText(text);
    if (result.ok) throw new Error('expected rejection');
    expect(result.error.code).toBe('EXECUTOR_FILE_INVALID');
    return (result.error.violations ?? []).map((v) => v.rule);
  };

  it('gives a clear error for non-JSON, empty, huge, deeply nested and ambiguous input', () => {
    expect(rule('')).toEqual(['empty_file']);
    expect(rule('  \n\t')).toEqual(['empty_file']);
    expect(rule('{"schema_version": 1,')).toEqual(['json_syntax']);
    expect(rule('not json')).toEqual(['json_syntax']);
    expect(rule('{"schema_version": 1, "executors": [],}')).toEqual(['json_syntax']);
    expect(rule('// comment\n{}')).toEqual(['json_syntax']);
    expect(rule(`{"pad": "${'x'.repeat(1024 * 1024)}"}`)).toEqual(['file_too_large']);
    expect(rule('['.repeat(100_000))).toEqual(['too_deep']);
    expect(rule(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`)).toEqual(['too_deep']);
    const duplicated = JSON.stringify(specFile).replace('"profile_id":"claude-sonnet"', '"profile_id":"claude-sonnet","profile_id":"x"');
    expect(rule(duplicated)).toEqual(['duplicate_key']);
  });

  it('locates syntax errors by line and column', () => {
    const result = parseExecutorFileText('{\n  "schema_version": 1\n  "executors": []\n}');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.violations?.[0]?.message).toMatch(/line 3, column 3/);
  });

  it('tolerates a UTF-8 byte order mark and reads files with bounded, fatal UTF-8 decoding', async () => {
    expect(parseExecutorFileText(`\uFEFF${JSON.stringify(specFile)}`).ok).toBe(true);
    const dir = tempDir();
    const latin1 = path.join(dir, 'latin1.json');
    writeFileSync(latin1, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
    await expect(loadExecutorFile(latin1)).rejects.toMatchObject({ code: 'EXECUTOR_FILE_INVALID', violations: [{ rule: 'not_utf8' }] });
    const huge = path.join(dir, 'huge.json');
    writeFileSync(huge, Buffer.alloc(3 * 1024 * 1024, 0x20));
    await expect(loadExecutorFile(huge)).rejects.toMatchObject({ code: 'EXECUTOR_FILE_INVALID', violations: [{ rule: 'file_too_large' }] });
    await expect(loadExecutorFile(path.join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'EXECUTOR_FILE_UNREADABLE' });
    await expect(loadExecutorFile(dir)).rejects.toMatchObject({ code: 'EXECUTOR_FILE_UNREADABLE' });
  });
});

const tempDir = useTempDirs();

describe('digests (decisions D3)', () => {
  // Known answers computed independently with Python's hashlib and json.dumps(sort_keys=True,
  // separators=(',', ':'), ensure_ascii=False), which equals RFC 8785 for these values:
  //   python3 -c 'import json,hashlib; d=lambda v:"sha256:"+hashlib.sha256(json.dumps(v,sort_keys=True,
  //     separators=(",",":"),ensure_ascii=False).encode()).hexdigest(); ...'
  const CLAUDE_SONNET = 'sha256:ee6f6baf07952b7fc5d5a604fb6f34589b9d40d4da489e27be897aeab7fab958';
  const CODEX_LOCAL_QWEN = 'sha256:15ad6bf3218e257a1184baf11517462a4356c17302314cf34b89accc0ba49db6';
  const SPEC_SET = 'sha256:88f9aadf33670ed217351c5645aff873db3483cc8049cffd5056975b87c62ac7';
  const LEGACY_CLAUDE = 'sha256:2d0c790e00034841ef5817fb939975aef11c98334048f791eb300746f65939d2';
  const LEGACY_CODEX = 'sha256:90f19b3a77a2c6426a80318cab08e326156f7450bb39e0e7d4da889360f3d156';

  it('matches the independently computed known answers', () => {
    expect(sha256Digest('x')).toBe('sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
    expect(digestOf('x')).toBe('sha256:ba2df4903a2c14e86dc3bcca58911b44ac1d2514b7227bf6eb08cfb978f55a1b');
    expect(digestOf({})).toBe('sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    const [a, b] = accepted(specFile);
    expect(profileDigest(a!)).toBe(CLAUDE_SONNET);
    expect(profileDigest(b!)).toBe(CODEX_LOCAL_QWEN);
    expect(executorSetDigest([a!, b!])).toBe(SPEC_SET);
    const legacy = synthesizeLegacyProfiles('claude,codex');
    expect(legacy.ok && legacy.value.map(profileDigest)).toEqual([LEGACY_CLAUDE, LEGACY_CODEX]);
  });

  it('serializes RFC 8785 canonical JSON', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'é'], c: { z: 1e21, y: 0.1 } })).toBe('{"a":[true,null,"é"],"b":1,"c":{"y":0.1,"z":1e+21}}');
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ a: undefined })).toThrow(TypeError);
  });

  it('never changes when the file is reordered', () => {
    const reversedKeys = (p: Json): Json => Object.fromEntries(Object.entries(p).reverse());
    const reordered = { executors: [reversedKeys(clone(codexLocalQwen)), reversedKeys(clone(claudeSonnet))], schema_version: 1 };
    const original = describeExecutorSet(accepted(specFile), BUILTIN_ADAPTERS, 'contained');
    const shuffled = describeExecutorSet(accepted(JSON.parse(JSON.stringify(reordered))), BUILTIN_ADAPTERS, 'contained');
    expect(shuffled).toEqual(original);
    expect(original.executor_set_digest).toBe(SPEC_SET);
  });

  it('always changes when any allowed value changes', () => {
    const variants: Json[] = [
      { ...claudeSonnet },
      { ...claudeSonnet, profile_id: 'claude-sonnet-2' },
      { ...claudeSonnet, model: 'claude-opus-4-5' },
      { ...claudeSonnet, model: null },
      ...CLAUDE_PERMISSION_MODES.filter((m) => m !== 'dontAsk').map((permission_mode) => ({ ...claudeSonnet, adapter_options: { ...claudeSonnet.adapter_options, permission_mode } })),
      ...CLAUDE_EFFORTS.filter((e) => e !== 'high').map((effort) => ({ ...claudeSonnet, adapter_options: { ...claudeSonnet.adapter_options, effort } })),
      { ...claudeSonnet, adapter_options: { effort: 'high' } },
      { ...claudeSonnet, adapter_options: {} },
      { ...claudeSonnet, adapter_options: { permission_mode: 'acceptEdits' } },
      { ...codexLocalQwen },
      { ...codexLocalQwen, local_provider: 'lmstudio' },
      { ...codexLocalQwen, local_provider: null },
      { ...codexLocalQwen, adapter_options: { sandbox: 'read-only' } },
      { ...codexLocalQwen, adapter_options: {} },
      { ...codexLocalQwen, model: 'qwen3-coder:31b' },
    ];
    const digests = variants.map((p) => profileDigest(accepted(fileWith(p, { ...codexLocalQwen, profile_id: 'other' }))[0]!));
    expect(new Set(digests).size).toBe(variants.length);
    const setDigests = variants.map((p) => executorSetDigest(accepted(fileWith(p, { ...codexLocalQwen, profile_id: 'other' }))));
    expect(new Set(setDigests).size).toBe(variants.length);
  });
});

describe('legacy --runtimes (decisions D4)', () => {
  it('synthesizes canonical null-model profiles in profile_id order', () => {
    const expected = [
      { profile_id: 'claude', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
      { profile_id: 'codex', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
    ];
    for (const list of ['claude,codex', 'codex,claude', ' codex , claude ']) {
      const result = synthesizeLegacyProfiles(list);
      expect(result.ok && result.value).toEqual(expected);
    }
    const described = describeExecutorSet(expected as ExecutorProfile[], BUILTIN_ADAPTERS, 'contained');
    expect(described.profiles.map((p) => p.branch_id)).toEqual(['branch-claude', 'branch-codex']);
  });

  it('rejects unknown runtimes, duplicates, empty entries and fewer than two', () => {
    const rules = (list: string): string[] => {
      const result = synthesizeLegacyProfiles(list);
      if (result.ok) throw new Error('expected rejection');
      expect(result.error.code).toBe('RUNTIMES_INVALID');
      return (result.error.violations ?? []).map((v) => `${v.path} ${v.rule}`);
    };
    expect(rules('claude,gemini')).toEqual(['--runtimes[1] unknown_runtime']);
    expect(rules('claude,claude')).toEqual(['--runtimes[1] duplicate_runtime']);
    expect(rules('claude')).toEqual(['--runtimes too_few_runtimes']);
    expect(rules('')).toEqual(['--runtimes[0] empty_entry', '--runtimes too_few_runtimes']);
    expect(rules('claude,,codex')).toEqual(['--runtimes[1] empty_entry']);
  });
});

describe('canonical invocation (decisions D5)', () => {
  const argvOf = (p: Json): string[] => {
    const [validated] = accepted(fileWith(p, { ...codexLocalQwen, profile_id: 'zz-other' }));
    const invocation = adapterFor(validated!.runtime, BUILTIN_ADAPTERS).invocation(validated!);
    return [invocation.executable, ...invocation.args];
  };

  it('defines the claude tool policy once, with no bare Write, Edit or MultiEdit', () => {
    const allowed = CLAUDE_ALLOWED_TOOLS.split(',');
    for (const bare of ['Write', 'Edit', 'MultiEdit', 'Bash', 'WebFetch']) expect(allowed).not.toContain(bare);
    expect(allowed).toEqual(expect.arrayContaining(['Read', 'Bash(git diff:*)', 'Bash(git status:*)', 'Bash(npm test:*)']));
    const denied = CLAUDE_DISALLOWED_TOOLS.split(',');
    for (const verb of ['branch', 'checkout', 'switch', 'commit', 'reset', 'clean', 'worktree', 'push', 'merge', 'rebase']) {
      expect(denied).toContain(`Bash(git ${verb}:*)`);
    }
    expect(denied).toEqual(expect.arrayContaining(['WebFetch', 'WebSearch']));
  });

  it('prints the same tool policy in docs/runtimes.md', () => {
    const runtimesPage = readFileSync(path.join(REPO_ROOT, 'docs', 'runtimes.md'), 'utf8');
    expect(runtimesPage).toContain(`\`<ALLOWED>\`: \`${CLAUDE_ALLOWED_TOOLS}\``);
    expect(runtimesPage).toContain(`\`<DENIED>\`: \`${CLAUDE_DISALLOWED_TOOLS}\``);
    expect(runtimesPage).toContain(`contained (the default), \`<ALLOWED>\` ends with \`,${CLAUDE_CONTAINED_EDIT_TOOLS_LIST.join(',')}\``);
  });

  it('produces the exact claude argv for every option combination', () => {
    for (const model of [null, 'claude-sonnet-4-5']) {
      for (const mode of [undefined, ...CLAUDE_PERMISSION_MODES]) {
        for (const effort of [undefined, ...CLAUDE_EFFORTS]) {
          const adapter_options: Json = {};
          if (mode !== undefined) adapter_options.permission_mode = mode;
          if (effort !== undefined) adapter_options.effort = effort;
          const expected = [
            'claude', '--print', '--output-format', 'json', '--permission-mode', mode ?? 'acceptEdits',
            '--allowedTools', CLAUDE_ALLOWED_TOOLS, '--disallowedTools', CLAUDE_DISALLOWED_TOOLS,
            ...(model ? ['--model', model] : []),
            ...(effort ? ['--effort', effort] : []),
          ];
          expect(argvOf({ ...claudeSonnet, model, adapter_options })).toEqual(expected);
        }
      }
    }
  });

  it('contained, grants edits below the worktree and nothing else changes; codex argv does not depend on containment', () => {
    const [claude, codex] = accepted(fileWith(claudeSonnet, codexLocalQwen));
    const runtimeOnly = BUILTIN_ADAPTERS.claude.invocation(claude!, 'runtime-only');
    expect(BUILTIN_ADAPTERS.claude.invocation(claude!)).toEqual(runtimeOnly);
    const contained = BUILTIN_ADAPTERS.claude.invocation(claude!, 'contained');
    const allowedAt = runtimeOnly.args.indexOf('--allowedTools') + 1;
    expect(contained.args).toEqual(runtimeOnly.args.map((arg, index) => (index === allowedAt ? `${CLAUDE_ALLOWED_TOOLS},Edit(./**)` : arg)));
    expect(BUILTIN_ADAPTERS.codex.invocation(codex!, 'contained')).toEqual(BUILTIN_ADAPTERS.codex.invocation(codex!, 'runtime-only'));
  });

  it('produces the exact codex argv for every option combination', () => {
    for (const sandbox of [undefined, ...CODEX_SANDBOXES]) {
      for (const provider of [null, 'ollama', 'lmstudio']) {
        for (const model of provider ? ['qwen3-coder:30b'] : [null, 'gpt-5.1-codex']) {
          const adapter_options: Json = sandbox === undefined ? {} : { sandbox };
          const expected = [
            'codex', 'exec', '--json', '--sandbox', sandbox ?? 'workspace-write', '--ignore-user-config',
            ...(provider ? ['--oss', '--local-provider', provider] : []),
            ...(model ? ['--model', model] : []),
            '-',
          ];
          expect(argvOf({ ...codexLocalQwen, model, local_provider: provider, adapter_options })).toEqual(expected);
        }
      }
    }
  });

  it('puts the prompt nowhere in argv and never produces a bypass', () => {
    const all = [...CLAUDE_PERMISSION_MODES.map((m) => argvOf({ ...claudeSonnet, adapter_options: { permission_mode: m } })), argvOf({ ...codexLocalQwen })];
    for (const argv of all) {
      expect(argv.join(' ')).not.toMatch(/bypassPermissions|danger-full-access|dangerously/);
    }
    expect(argvOf({ ...codexLocalQwen }).at(-1)).toBe('-');
  });

  it('refuses a profile given to the adapter of another runtime', () => {
    const [claude] = accepted(specFile);
    expect(() => adapterFor('codex', BUILTIN_ADAPTERS).invocation(claude!)).toThrow(/given a "claude" profile/);
    expect(() => adapterFor('not-a-runtime', BUILTIN_ADAPTERS)).toThrow(expect.objectContaining({ code: 'RUNTIME_UNKNOWN' }));
    expect(() => adapterFor('__proto__', BUILTIN_ADAPTERS)).toThrow(expect.objectContaining({ code: 'RUNTIME_UNKNOWN' }));
  });
});

describe('executable resolution', () => {
  const codexVendor = adapterFor('codex', BUILTIN_ADAPTERS).vendorPackage;
  const claudeVendor = adapterFor('claude', BUILTIN_ADAPTERS).vendorPackage;
  const NPM_JS_SHIM = (rel: string): string =>
    `@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n\r\nIF EXIST "%dp0%\\node.exe" (\r\n  SET "_prog=%dp0%\\node.exe"\r\n) ELSE (\r\n  SET "_prog=node"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\nendLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\${rel}" %*\r\n`;
  const NPM_EXE_SHIM = (rel: string): string =>
    `@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n"%dp0%\\${rel}"   %*\r\n`;

  function vendorPackage(dir: string, name: string, bin: Record<string, string>, files: Record<string, string>): string {
    const pkg = path.join(dir, 'node_modules', ...name.split('/'));
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name, version: '1.0.0', bin }));
    for (const [rel, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(pkg, rel)), { recursive: true });
      writeFileSync(path.join(pkg, rel), content);
    }
    return pkg;
  }
  const win = (dir: string, extra: Record<string, string> = {}) => ({
    platform: 'win32' as const,
    env: { Path: `relative\\dir;${dir}`, ...extra },
    nodeExecPath: '/opt/node/node.exe',
  });

  it('windows: a known vendor JavaScript shim runs its declared entrypoint with the current Node', async () => {
    const dir = tempDir();
    const pkg = vendorPackage(dir, '@openai/codex', { codex: 'bin/codex.js' }, { 'bin/codex.js': '' });
    writeFileSync(path.join(dir, 'codex.cmd'), NPM_JS_SHIM('node_modules\\@openai\\codex\\bin\\codex.js'));
    writeFileSync(path.join(dir, 'codex'), '#!/bin/sh\n'); // npm's POSIX shim beside it is never used on Windows
    const resolved = await resolveExecutable('codex', codexVendor, win(dir));
    expect(resolved).toEqual({ command: '/opt/node/node.exe', argsPrefix: [path.join(pkg, 'bin', 'codex.js')], foundAt: path.join(dir, 'codex.cmd'), via: 'npm-shim' });
  });

  it('windows: a known vendor native shim runs the packaged executable directly', async () => {
    const dir = tempDir();
    const pkg = vendorPackage(dir, '@anthropic-ai/claude-code', { claude: 'bin/claude.exe' }, { 'bin/claude.exe': 'MZ' });
    writeFileSync(path.join(dir, 'claude.cmd'), NPM_EXE_SHIM('node_modules\\@anthropic-ai\\claude-code\\bin\\claude.exe'));
    const resolved = await resolveExecutable('claude', claudeVendor, win(dir));
    expect(resolved).toMatchObject({ command: path.join(pkg, 'bin', 'claude.exe'), argsPrefix: [], via: 'npm-shim' });
  });

  it('windows: an .exe earlier in PATHEXT wins and runs directly', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'codex.exe'), 'MZ');
    writeFileSync(path.join(dir, 'codex.cmd'), 'anything');
    expect(await resolveExecutable('codex', codexVendor, win(dir))).toMatchObject({ command: path.join(dir, 'codex.exe'), via: 'path' });
    await expect(resolveExecutable('codex', codexVendor, win(dir, { PATHEXT: '.CMD;.EXE' }))).rejects.toMatchObject({ code: 'RUNTIME_SHIM_UNSUPPORTED' });
  });

  it('windows: unknown, foreign or tampered shims fail closed', async () => {
    const unknown = tempDir();
    writeFileSync(path.join(unknown, 'codex.cmd'), '@echo off\r\npowershell -c "evil" %*\r\n');
    await expect(resolveExecutable('codex', codexVendor, win(unknown))).rejects.toMatchObject({ code: 'RUNTIME_SHIM_UNSUPPORTED' });

    const bat = tempDir();
    writeFileSync(path.join(bat, 'codex.bat'), '@echo off\r\n');
    await expect(resolveExecutable('codex', codexVendor, win(bat))).rejects.toMatchObject({ code: 'RUNTIME_SHIM_UNSUPPORTED' });

    const foreign = tempDir();
    vendorPackage(foreign, '@evil/codex', { codex: 'bin/codex.js' }, { 'bin/codex.js': '' });
    writeFileSync(path.join(foreign, 'codex.cmd'), NPM_JS_SHIM('node_modules\\@evil\\codex\\bin\\codex.js'));
    await expect(resolveExecutable('codex', codexVendor, win(foreign))).rejects.toMatchObject({ code: 'RUNTIME_SHIM_UNSUPPORTED' });

    const tampered = tempDir();
    vendorPackage(tampered, '@openai/codex', { codex: 'bin/codex.js' }, { 'bin/codex.js': '', 'bin/other.js': '' });
    writeFileSync(path.join(tampered, 'codex.cmd'), NPM_JS_SHIM('node_modules\\@openai\\codex\\bin\\other.js'));
    await expect(resolveExecutable('codex', codexVendor, win(tampered))).rejects.toMatchObject({ code: 'RUNTIME_SHIM_UNSUPPORTED' });

    const escaping = tempDir();
    const pkg = vendorPackage(escaping, '@openai/codex', { codex: 'bin/codex.js' }, { 'bin/README': '' });
    writeFileSync(path.join(escaping, 'outside.js'), '');
    symlinkSync(path.join(escaping, 'outside.js'), path.join(pkg, 'bin', 'codex.js'));
    writeFileSync(path.join(escaping, 'codex.cmd'), NPM_JS_SHIM('node_modules\\@openai\\codex\\bin\\codex.js'));
    await expect(resolveExecutable('codex', codexVendor, win(escaping))).rejects.toMatchObject({ code: 'RUNTIME_SHIM_UNSUPPORTED' });

    const script = tempDir();
    vendorPackage(script, '@openai/codex', { codex: 'bin/codex.ps1' }, { 'bin/codex.ps1': '' });
    writeFileSync(path.join(script, 'codex.cmd'), NPM_JS_SHIM('node_modules\\@openai\\codex\\bin\\codex.ps1'));
    await expect(resolveExecutable('codex', codexVendor, win(script))).rejects.toMatchObject({ code: 'RUNTIME_SHIM_UNSUPPORTED' });
  });

  it('windows and posix: a missing executable is RUNTIME_NOT_FOUND', async () => {
    const dir = tempDir();
    await expect(resolveExecutable('codex', codexVendor, win(dir))).rejects.toMatchObject({ code: 'RUNTIME_NOT_FOUND' });
    await expect(resolveExecutable('codex', codexVendor, { platform: 'linux', env: { PATH: dir } })).rejects.toMatchObject({ code: 'RUNTIME_NOT_FOUND' });
    await expect(resolveExecutable('codex', codexVendor, { platform: 'linux', env: {} })).rejects.toMatchObject({ code: 'RUNTIME_NOT_FOUND' });
  });

  it('posix: the first executable file on PATH by bare name; relative entries and non-executables are skipped', async () => {
    const [a, b] = [tempDir(), tempDir()];
    writeFileSync(path.join(a, 'claude'), '#!/bin/sh\n');
    chmodSync(path.join(a, 'claude'), 0o644);
    mkdirSync(path.join(a, 'codex'));
    writeFileSync(path.join(b, 'claude'), '#!/bin/sh\n');
    chmodSync(path.join(b, 'claude'), 0o755);
    const env = { PATH: ['.', 'relative', a, b].join(':') };
    expect(await resolveExecutable('claude', claudeVendor, { platform: 'linux', env })).toEqual({
      command: path.join(b, 'claude'), argsPrefix: [], foundAt: path.join(b, 'claude'), via: 'path',
    });
    await expect(resolveExecutable('codex', codexVendor, { platform: 'linux', env })).rejects.toMatchObject({ code: 'RUNTIME_NOT_FOUND' });
  });
});

describe('CLI: executor selection rule', () => {
  it('refuses --runtimes with --executors, and neither, as usage errors', () => {
    expect(() => executorSelectionFrom({ runtimes: 'claude,codex', executors: 'x.json' })).toThrow(expect.objectContaining({ code: 'EXECUTOR_SELECTION_CONFLICT' }));
    expect(() => executorSelectionFrom({})).toThrow(expect.objectContaining({ code: 'EXECUTOR_SELECTION_MISSING' }));
    expect(executorSelectionFrom({ executors: 'x.json' })).toEqual({ kind: 'executors', file: 'x.json' });
    expect(executorSelectionFrom({ runtimes: 'claude,codex' })).toEqual({ kind: 'runtimes', list: 'claude,codex' });
  });
});

describe('CLI: citadel executors validate (real child process)', () => {
  it('--json prints exactly the D13 document and exits 0', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'executors.json');
    writeFileSync(file, JSON.stringify({ schema_version: 1, executors: [codexLocalQwen, claudeSonnet] }));
    const run = await runCli(['executors', 'validate', file, '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const doc = JSON.parse(run.stdout) as Json;
    expect(doc).toEqual(describeExecutorSet(accepted(specFile), BUILTIN_ADAPTERS, 'contained'));
    expect(doc).toMatchObject({
      executor_set_digest: 'sha256:88f9aadf33670ed217351c5645aff873db3483cc8049cffd5056975b87c62ac7',
      profiles: [
        { profile_id: 'claude-sonnet', runtime: 'claude', profile_digest: 'sha256:ee6f6baf07952b7fc5d5a604fb6f34589b9d40d4da489e27be897aeab7fab958' },
        { profile_id: 'codex-local-qwen', runtime: 'codex', argv: ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '--oss', '--local-provider', 'ollama', '--model', 'qwen3-coder:30b', '-'] },
      ],
    });
  });

  it('an invalid file exits 1 with one JSON error document listing every violation', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(fileWith({ ...claudeSonnet, adapter_options: { permission_mode: 'bypassPermissions' } }, { ...codexLocalQwen, model: null })));
    const run = await runCli(['executors', 'validate', file, '--json']);
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout) as { error: CitadelError };
    expect(doc.error).toMatchObject({
      code: 'EXECUTOR_FILE_INVALID',
      violations: [
        { path: '$.executors[0].adapter_options.permission_mode', rule: 'forbidden_value' },
        { path: '$.executors[1].model', rule: 'provider_requires_model' },
      ],
    });
    const human = await runCli(['executors', 'validate', file]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain('EXECUTOR_FILE_INVALID');
    expect(human.stderr).toContain('$.executors[1].model  provider_requires_model');
  });

  it('non-JSON and missing files are refused with exit 1, never a crash', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'garbage.json');
    writeFileSync(file, '\u0000\u0001 not json');
    const garbage = await runCli(['executors', 'validate', file, '--json']);
    expect(garbage.code).toBe(1);
    expect(JSON.parse(garbage.stdout)).toMatchObject({ error: { code: 'EXECUTOR_FILE_INVALID', violations: [{ rule: 'json_syntax' }] } });
    const missing = await runCli(['executors', 'validate', path.join(dir, 'none.json'), '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'EXECUTOR_FILE_UNREADABLE' } });
  });

  it('usage errors exit 2; --help exits 0 everywhere', async () => {
    const noFile = await runCli(['executors', 'validate', '--json']);
    expect(noFile.code).toBe(2);
    expect(JSON.parse(noFile.stdout)).toMatchObject({ error: { code: 'USAGE_ERROR' } });
    const unknown = await runCli(['executors', 'validate', 'x.json', '--frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option/);
    for (const args of [['--help'], ['executors', '--help'], ['executors', 'validate', '--help'], ['demo', '--help']]) {
      const help = await runCli(args);
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout).toMatch(/Usage: citadel/);
    }
  });

  it('human output shows each profile digest, argv and the set digest', async () => {
    const run = await runCli(['executors', 'validate', path.join(REPO_ROOT, 'examples', 'executors.json')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/claude-sonnet \(claude, model claude-sonnet-4-5\) -> branch-claude-sonnet/);
    expect(run.stdout).toMatch(/executor set digest {2}sha256:[0-9a-f]{64}/);
    expect(run.stdout).toContain("--allowedTools 'Read,Glob,Grep,");
    // Contained (the default) the tool policy also grants edits below the worktree; the runtime-only argv is shown beside it.
    expect(run.stdout).toMatch(/ {4}argv {12}claude .*,Bash\(git blame:\*\),Edit\(\.\/\*\*\)' --disallowedTools/);
    expect(run.stdout).toMatch(/ {4}runtime-only {4}claude .*,Bash\(git blame:\*\)' --disallowedTools/);
  });
});
