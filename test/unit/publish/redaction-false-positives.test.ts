import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../shared/errors';
import { BRANCH_STATES, FORK_STATES } from '../../../shared/fork/fork-states';
import { FAILURE_CODES } from '../../../shared/runtime/telemetry';
import { scanForSecrets } from '../../../main/publish/redaction/secret-scan';
import { ALPHABETS, fakeCommit, fakeDigest, fill, replayLike } from '../../fixtures/secrets/corpus';

const HEX = ALPHABETS.hex;
const FORK_ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const forkId = (seed: number): string => 'fork-' + fill(seed, 26, FORK_ID_ALPHABET);

const MODEL_IDS = [
  'claude-sonnet-4-5',
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-1-20250805',
  'claude-3-5-haiku-latest',
  'qwen3-coder:30b',
  'qwen3-coder:480b-a35b-instruct-q4_K_M',
  'qwen2.5-coder:32b-instruct-q8_0',
  'llama3.1:70b-instruct-q4_K_M',
  'deepseek-coder-v2-lite-instruct-q4_K_M',
  'mixtral-8x22b-instruct-v0.1',
  'gpt-5.1-codex',
  'gpt-5.1-codex-max',
  'gpt-5-codex-mini',
  'gpt-4o-2024-08-06',
  'o3-mini',
  'gemini-2.5-pro-preview-06-05',
  'us.anthropic.claude-sonnet-4-20250514-v1:0',
  'Qwen2.5-Coder-32B-Instruct-GPTQ-Int8',
  'Meta-Llama-3.1-405B-Instruct-Turbo',
];
const RUNTIMES = ['claude', 'codex', 'qwen-code', 'gemini-cli', 'opencode', 'aider'];
const PROVIDERS = ['anthropic', 'openai', 'ollama', 'lmstudio', 'openai-compatible', 'google'];
const PROFILE_IDS = ['claude-high', 'codex-local', 'qwen3-coder-30b', 'claude-sonnet-4-5-experimental', 'sk-learn-baseline'];
const OUTCOMES = ['recommend', 'tie', 'insufficient-evidence', 'passed', 'failed', 'unknown', 'not_run'];
const STEP_IDS = ['git_diff_check', 'workflow_verifier', 'protected_paths', 'claude_result_model_usage', 'codex_rollout_turn_context'];

const LEGITIMATE: readonly string[] = [
  ...[1, 2, 3, 4, 5].flatMap((seed) => [fakeDigest(seed), forkId(seed + 20)]),
  ...PROFILE_IDS.map((id) => `branch-${id}`),
  `citadel/${forkId(30)}/branch-claude-high`,
  '2025-11-03T12:34:56.789Z',
  '2026-01-01T00:00:00Z',
  '1970-01-01T00:00:00.000Z',
  ...MODEL_IDS,
  ...RUNTIMES,
  ...PROVIDERS,
  ...PROFILE_IDS,
  ...FORK_STATES,
  ...BRANCH_STATES,
  ...OUTCOMES,
  ...STEP_IDS,
  ...FAILURE_CODES,
  ...ERROR_CODES,
  'Verified 3/4 receipts; ~2 minutes per branch; see https://github.com/anthropics/claude-code for the runtime.',
];

describe('redaction false positives', () => {
  it('lets every legitimate replay value through, as a value, as a key and inside a sentence', async () => {
    const doc = {
      values: LEGITIMATE,
      keys: Object.fromEntries(LEGITIMATE.map((value) => [value, true])),
      sentences: LEGITIMATE.map((value) => `Branch ${value} ended at 2025-11-03T12:34:56.789Z.`),
    };
    expect(await scanForSecrets(doc)).toEqual([]);
  });

  it('lets a complete replay-like document through', async () => {
    expect(await scanForSecrets(replayLike())).toEqual([]);
  });

  it('keeps a commit id as the whole value of a commit field, at any depth', async () => {
    const doc = { base_revision: fakeCommit(11), commit: fakeCommit(12), landing: { merge_commit: fakeCommit(13) }, branches: [{ result_commit: fakeCommit(14) }] };
    expect(await scanForSecrets(doc)).toEqual([]);
  });

  // A 40-hex commit id is a GitHub classic or New Relic token's shape: kept only in a commit field.
  it.each([
    ['as a model id', { branches: [{ requested_model: fakeCommit(15) }] }, '$.branches[0].requested_model'],
    ['in adapter options', { adapter: { options: { api_key: fakeCommit(16) } } }, '$.adapter.options.api_key'],
    ['in objective text', { objective: `Deploy with token ${fakeCommit(17)} then verify.` }, '$.objective'],
    ['in a message', { messages: ['ok', `runtime said ${fakeCommit(18)}`] }, '$.messages[1]'],
    ['as an object key', { models: { [fakeCommit(19)]: true } }, '$.models.<key#0>'],
    ['in a commit field beside other text', { result_commit: `${fakeCommit(20)} (head)` }, '$.result_commit'],
    ['in a commit field, uppercase', { result_commit: fakeCommit(21).toUpperCase() }, '$.result_commit'],
    ['in a field merely containing "commit"', { commit_message: fakeCommit(22) }, '$.commit_message'],
  ])('flags a 40-hex token %s', async (_name, doc, path) => {
    expect(await scanForSecrets(doc)).toEqual([{ path, rule: 'citadel/high-entropy' }]);
  });

  // Digests and fork ids are exempt by exact shape; hex in general is not.
  it.each([
    ['a bare 64-hex string', fill(61, 64, HEX)],
    ['a bare 40-hex string', fill(60, 40, HEX)],
    ['39 hex', fill(62, 39, HEX)],
    ['41 hex', fill(63, 41, HEX)],
    ['32 hex', fill(64, 32, HEX)],
    ['uppercase 40 hex', fill(65, 40, HEX).toUpperCase()],
    ['a digest with uppercase hex', 'sha256:' + fill(66, 64, HEX).toUpperCase()],
    ['a digest one digit short', 'sha256:' + fill(67, 63, HEX)],
    ['a digest with a token glued on', fakeDigest(68) + 'Zq9x'],
    ['a fork id with a mixed-case body', 'fork-' + fill(69, 26, ALPHABETS.base62)],
    ['a fork id one char too long', forkId(70) + 'x'],
    ['a branch id with a random body', 'branch-' + fill(71, 30, 'abcdefghijklmnopqrstuvwxyz0123456789')],
  ])('still flags %s', async (_name, value) => {
    expect(await scanForSecrets({ value })).toEqual([{ path: '$.value', rule: 'citadel/high-entropy' }]);
  });

  it('finds nothing in random replay-like documents', async () => {
    const word = fc.constantFrom('claude', 'codex', 'qwen', 'local', 'high', 'fast', 'review', 'coder', 'baseline', 'retry');
    const profileId = fc.array(fc.oneof(word, fc.integer({ min: 1, max: 999 }).map(String)), { minLength: 1, maxLength: 5 }).map((parts) => parts.join('-'));
    const modelId = fc.oneof(
      fc.constantFrom(...MODEL_IDS),
      fc
        .tuple(fc.constantFrom('claude', 'gpt', 'qwen3', 'llama3.1', 'gemini'), fc.constantFrom('sonnet', 'opus', 'coder', 'codex', 'pro'), fc.integer({ min: 1, max: 9 }), fc.date({ min: new Date('2023-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }))
        .map(([family, line, major, date]) => `${family}-${line}-${major}-${date.toISOString().slice(0, 10).replaceAll('-', '')}`),
      fc.tuple(fc.constantFrom('qwen3-coder', 'llama3.1', 'deepseek-r1'), fc.integer({ min: 1, max: 700 })).map(([family, size]) => `${family}:${size}b`),
    );
    const timestamp = fc.date({ min: new Date('2020-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
    const branch = fc.record({
      branch_id: profileId.map((id) => `branch-${id}`),
      profile_id: profileId,
      runtime: fc.constantFrom(...RUNTIMES),
      state: fc.constantFrom(...BRANCH_STATES),
      failure_code: fc.option(fc.constantFrom(...FAILURE_CODES)),
      model: fc.record({ provider: fc.constantFrom(...PROVIDERS), requested: fc.option(modelId), observed: fc.option(modelId), proof: fc.constantFrom('passed', 'failed', 'unknown') }),
      receipt_digest: fc.option(fc.stringMatching(/^sha256:[0-9a-f]{64}$/)),
      result_commit: fc.option(fc.stringMatching(/^[0-9a-f]{40}$/)),
      history: fc.array(fc.record({ state: fc.constantFrom(...BRANCH_STATES), at: timestamp }), { maxLength: 4 }),
      files_changed: fc.nat(),
      cost_usd: fc.option(fc.double({ min: 0, max: 100, noNaN: true })),
    });
    const replay = fc.record({
      fork_id: fc.stringMatching(/^fork-[0-9a-hjkmnp-tv-z]{26}$/),
      contract_digest: fc.stringMatching(/^sha256:[0-9a-f]{64}$/),
      base_revision: fc.stringMatching(/^[0-9a-f]{40}$/),
      state: fc.constantFrom(...FORK_STATES),
      created_at: timestamp,
      branches: fc.array(branch, { minLength: 2, maxLength: 4 }),
      outcome: fc.constantFrom('recommend', 'tie', 'insufficient-evidence'),
    });
    await fc.assert(
      fc.asyncProperty(replay, async (doc) => {
        expect(await scanForSecrets(doc)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});
