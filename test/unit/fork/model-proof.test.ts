/**
 * Model proof (executor-profiles.md, "Model proof and Mission Control"), row by row: requested
 * comes from the signed profile, observed only from trusted adapter telemetry, and the status is
 * passed only on an exact trusted match. Missing, untrusted or unparsable is unknown, never passed.
 */
import { describe, expect, it } from 'vitest';
import { modelProof, ModelProofSchema, type ModelProof } from '../../../shared/fork/model-proof';
import { TelemetrySchema, UNKNOWN_TELEMETRY, type Telemetry } from '../../../shared/runtime/telemetry';

type Source = Telemetry['observed_model_source'];
const telemetry = (observed: string | null, source: Source, extra: Partial<Telemetry> = {}): Telemetry =>
  TelemetrySchema.parse({ ...UNKNOWN_TELEMETRY, observed_model: observed, observed_model_source: source, ...extra });
const CLAUDE: Source = 'claude_result_model_usage';
const CODEX: Source = 'codex_rollout_turn_context';

interface Row {
  readonly row: string;
  readonly model: string | null;
  readonly provider: string | null;
  /** null: the telemetry does not come from a verified receipt. */
  readonly trusted: Telemetry | null;
  readonly expected: ModelProof;
}

const ROWS: readonly Row[] = [
  {
    row: 'explicit model, trusted exact match (Claude) → passed',
    model: 'claude-sonnet-4-5',
    provider: null,
    trusted: telemetry('claude-sonnet-4-5', CLAUDE),
    expected: { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: 'claude-sonnet-4-5', status: 'passed' },
  },
  {
    row: 'explicit model, trusted exact match (Codex rollout) → passed',
    model: 'gpt-5.1-codex-mini',
    provider: null,
    trusted: telemetry('gpt-5.1-codex-mini', CODEX),
    expected: { requested_model: 'gpt-5.1-codex-mini', requested_provider: null, observed_model: 'gpt-5.1-codex-mini', status: 'passed' },
  },
  {
    row: 'explicit model, trusted different model → failed',
    model: 'claude-sonnet-4-5',
    provider: null,
    trusted: telemetry('claude-opus-4-1', CLAUDE),
    expected: { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: 'claude-opus-4-1', status: 'failed' },
  },
  {
    row: 'exact means exact: a dated variant of the requested alias → failed',
    model: 'claude-sonnet-4-5',
    provider: null,
    trusted: telemetry('claude-sonnet-4-5-20250929', CLAUDE),
    expected: { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: 'claude-sonnet-4-5-20250929', status: 'failed' },
  },
  {
    row: 'exact means exact: a different letter case → failed',
    model: 'claude-sonnet-4-5',
    provider: null,
    trusted: telemetry('Claude-Sonnet-4-5', CLAUDE),
    expected: { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: 'Claude-Sonnet-4-5', status: 'failed' },
  },
  {
    row: 'explicit model, verified receipt without an observed model → unknown',
    model: 'gpt-5.1-codex-mini',
    provider: null,
    trusted: telemetry(null, null),
    expected: { requested_model: 'gpt-5.1-codex-mini', requested_provider: null, observed_model: null, status: 'unknown' },
  },
  {
    row: 'explicit model, telemetry not from a verified receipt (trusted null) → unknown',
    model: 'claude-sonnet-4-5',
    provider: null,
    trusted: null,
    expected: { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: null, status: 'unknown' },
  },
  {
    row: 'explicit model, a matching model with no trusted source (observed_model_source null) → unknown',
    model: 'claude-sonnet-4-5',
    provider: null,
    trusted: telemetry('claude-sonnet-4-5', null),
    expected: { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: null, status: 'unknown' },
  },
  {
    row: 'explicit model, a mismatching model with no trusted source → unknown (untrusted cannot fail either)',
    model: 'claude-sonnet-4-5',
    provider: null,
    trusted: telemetry('claude-opus-4-1', null),
    expected: { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: null, status: 'unknown' },
  },
  {
    row: 'explicit model, an unparsable observed identity (empty) → unknown',
    model: 'claude-sonnet-4-5',
    provider: null,
    trusted: telemetry('', CLAUDE),
    expected: { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: null, status: 'unknown' },
  },
  {
    row: 'legacy null model, no telemetry → requested default, unknown',
    model: null,
    provider: null,
    trusted: null,
    expected: { requested_model: 'default', requested_provider: null, observed_model: null, status: 'unknown' },
  },
  {
    row: 'legacy null model, verified receipt without an observed model → unknown',
    model: null,
    provider: null,
    trusted: telemetry(null, null),
    expected: { requested_model: 'default', requested_provider: null, observed_model: null, status: 'unknown' },
  },
  {
    row: 'legacy null model, observed model without a trusted source → unknown',
    model: null,
    provider: null,
    trusted: telemetry('gpt-5.1-codex', null),
    expected: { requested_model: 'default', requested_provider: null, observed_model: null, status: 'unknown' },
  },
  {
    // "unknown unless the adapter produces trusted observed identity": then the default is proven.
    row: 'legacy null model, trusted observed identity → passed, and the observed model is shown',
    model: null,
    provider: null,
    trusted: telemetry('gpt-5.1-codex', CODEX),
    expected: { requested_model: 'default', requested_provider: null, observed_model: 'gpt-5.1-codex', status: 'passed' },
  },
  {
    row: 'legacy null model, an unparsable trusted identity (not public-safe) → unknown',
    model: null,
    provider: null,
    trusted: telemetry('gpt 5 / codex', CODEX),
    expected: { requested_model: 'default', requested_provider: null, observed_model: null, status: 'unknown' },
  },
  {
    row: 'local provider, exact trusted match → passed',
    model: 'qwen3-coder:30b',
    provider: 'ollama',
    trusted: telemetry('qwen3-coder:30b', CODEX),
    expected: { requested_model: 'qwen3-coder:30b', requested_provider: 'ollama', observed_model: 'qwen3-coder:30b', status: 'passed' },
  },
  {
    row: 'local provider, a neighbouring size (qwen3-coder:30b vs qwen3-coder:32b) → failed',
    model: 'qwen3-coder:30b',
    provider: 'ollama',
    trusted: telemetry('qwen3-coder:32b', CODEX),
    expected: { requested_model: 'qwen3-coder:30b', requested_provider: 'ollama', observed_model: 'qwen3-coder:32b', status: 'failed' },
  },
  {
    row: 'local provider, the base name without the tag → failed',
    model: 'qwen3-coder:30b',
    provider: 'lmstudio',
    trusted: telemetry('qwen3-coder', CODEX),
    expected: { requested_model: 'qwen3-coder:30b', requested_provider: 'lmstudio', observed_model: 'qwen3-coder', status: 'failed' },
  },
  {
    row: 'local provider, no observed model → unknown (never inferred from the request)',
    model: 'qwen3-coder:30b',
    provider: 'ollama',
    trusted: telemetry(null, null),
    expected: { requested_model: 'qwen3-coder:30b', requested_provider: 'ollama', observed_model: null, status: 'unknown' },
  },
  {
    row: 'tokens and cost play no part: unknown usage with a trusted match → passed',
    model: 'claude-sonnet-4-5',
    provider: null,
    trusted: telemetry('claude-sonnet-4-5', CLAUDE, { input_tokens: null, output_tokens: null, cost_usd: null }),
    expected: { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: 'claude-sonnet-4-5', status: 'passed' },
  },
];

describe('model proof table', () => {
  for (const { row, model, provider, trusted, expected } of ROWS) {
    it(row, () => {
      const proof = modelProof({ model, local_provider: provider }, trusted);
      expect(proof).toEqual(expected);
      expect(ModelProofSchema.parse(proof)).toEqual(proof);
    });
  }

  it('covers passed, failed and unknown for explicit, legacy and local-provider profiles', () => {
    const seen = new Set(ROWS.map((r) => `${r.provider !== null ? 'local' : r.model === null ? 'legacy' : 'explicit'}:${r.expected.status}`));
    for (const kind of ['explicit', 'local']) for (const status of ['passed', 'failed', 'unknown']) expect(seen).toContain(`${kind}:${status}`);
    for (const status of ['passed', 'unknown']) expect(seen).toContain(`legacy:${status}`);
  });

  it('never converts missing or untrusted evidence to passed, for any requested model', () => {
    const requests = [
      { model: null, local_provider: null },
      { model: 'claude-sonnet-4-5', local_provider: null },
      { model: 'qwen3-coder:30b', local_provider: 'ollama' },
    ];
    const observations = [null, '', 'claude-sonnet-4-5', 'qwen3-coder:30b', 'gpt-5.1-codex'];
    let checked = 0;
    for (const requested of requests) {
      for (const observed of observations) {
        // Not from a verified receipt, or no trusted source: never passed, never failed, observed hidden.
        for (const trusted of [null, telemetry(observed, null)]) {
          expect(modelProof(requested, trusted)).toEqual({ requested_model: requested.model ?? 'default', requested_provider: requested.local_provider, observed_model: null, status: 'unknown' });
          checked += 1;
        }
        // A trusted source: passed only on a parsable identity that equals the request (or any, for default).
        for (const source of [CLAUDE, CODEX]) {
          const proof = modelProof(requested, telemetry(observed, source));
          const parsable = observed !== null && observed !== '';
          expect(proof.status).toBe(!parsable ? 'unknown' : requested.model === null || requested.model === observed ? 'passed' : 'failed');
          expect(proof.observed_model).toBe(parsable ? observed : null);
          checked += 1;
        }
      }
    }
    expect(checked).toBe(requests.length * observations.length * 4);
  });
});
