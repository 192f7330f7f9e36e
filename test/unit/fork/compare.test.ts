/**
 * The comparison engine (operation-fork.md, "Comparison rules") on BranchEvidence built directly:
 * verifier outcome dominates, a recommendation needs exactly one comparable branch with the
 * strongest verified outcome, cost and speed never decide, unknown stays null, and the output does
 * not depend on input order.
 */
import { describe, expect, it } from 'vitest';
import { digestOf } from '../../../shared/digest';
import { compareBranches, ComparisonSchema, type BranchEvidence, type Comparison, type VerificationReason } from '../../../shared/fork/compare';
import { modelProof } from '../../../shared/fork/model-proof';
import { ExecutionReceiptSchema, type ExecutionReceipt, type VerifierStep } from '../../../shared/fork/receipts';
import { requiredVerifierSteps } from '../../../shared/fork/required-evidence';
import type { FailureCode } from '../../../shared/runtime/telemetry';
import { wireFactsOf } from '../../../shared/runtime/wire-facts';

const FORK_ID = 'fork-01jz8y3k7q2w5e9r4t6y8v0a1b';
// A contract with a workflow verifier command: three required steps.
const REQUIRED = requiredVerifierSteps({ command: 'npm test' });
const BASE = 'a'.repeat(40);

interface ReceiptFacts {
  readonly status?: 'passed' | 'failed';
  readonly failure_code?: FailureCode | null;
  readonly verifier?: 'passed' | 'failed' | 'not_run';
  /** Steps with evidence; the rest are not_run. Defaults to all three. */
  readonly steps_present?: number;
  /** The receipt starts with a passed `result_symlinks` step, as every receipt written since issue 12 does (it is not a required step). */
  readonly result_symlinks?: boolean;
  readonly cost_usd?: number | null;
  readonly duration_ms?: number | null;
  readonly tokens?: number | null;
  readonly diff?: { files_changed: number; insertions: number; deletions: number } | null;
  readonly observed_model?: string | null;
}

/** A schema-valid execution receipt with the given facts. */
function receipt(branchId: string, facts: ReceiptFacts = {}): ExecutionReceipt {
  const status = facts.status ?? 'passed';
  const verifier = facts.verifier ?? (status === 'passed' ? 'passed' : 'failed');
  const present = facts.steps_present ?? 3;
  const steps: VerifierStep[] = (['protected_paths', 'git_diff_check', 'workflow_verifier'] as const).map((id, i) =>
    i < present
      ? { id, status: verifier === 'failed' && i === present - 1 ? 'failed' : 'passed', exit_code: 0, timed_out: false, duration_ms: 5, output_digest: digestOf(id) }
      : { id, status: 'not_run', exit_code: null, timed_out: false, duration_ms: null, output_digest: null },
  );
  if (facts.result_symlinks) steps.unshift({ id: 'result_symlinks', status: 'passed', exit_code: null, timed_out: false, duration_ms: 1, output_digest: digestOf('links') });
  const observed = facts.observed_model === undefined ? 'claude-sonnet-4-5' : facts.observed_model;
  return ExecutionReceiptSchema.parse({
    schema_version: 1,
    kind: 'execution_receipt',
    fork_id: FORK_ID,
    branch_id: branchId,
    attempt: 1,
    runtime: 'claude',
    contract_digest: digestOf('contract'),
    executor_profile_digest: digestOf(branchId),
    argv_digest: digestOf('argv'),
    instruction_digest: digestOf('instruction'),
    env_names: ['HOME', 'PATH'],
    instruction_files: [],
    started_at: '2026-01-02T03:04:05.000Z',
    ended_at: '2026-01-02T03:04:06.000Z',
    duration_ms: facts.duration_ms === undefined ? 1000 : facts.duration_ms,
    exit: { code: 0, signal: null, timed_out: false, stopped: false },
    base_revision: BASE,
    result_commit: 'b'.repeat(40),
    result_tree: 'c'.repeat(40),
    diff: facts.diff === undefined ? { files_changed: 1, insertions: 2, deletions: 3 } : facts.diff,
    diff_digest: digestOf('diff'),
    verifier: { status: verifier, steps },
    telemetry: {
      observed_model: observed,
      observed_model_source: observed === null ? null : 'claude_result_model_usage',
      input_tokens: facts.tokens === undefined ? 100 : facts.tokens,
      output_tokens: facts.tokens === undefined ? 50 : facts.tokens,
      cost_usd: facts.cost_usd === undefined ? 0.5 : facts.cost_usd,
    },
    status,
    failure_code: facts.failure_code !== undefined ? facts.failure_code : status === 'passed' ? null : 'VERIFIER_FAILED',
  });
}

/** Evidence as verifyFork hands it over: a receipt only when verified. */
function verified(branchId: string, facts: ReceiptFacts = {}, requestedModel: string | null = 'claude-sonnet-4-5'): BranchEvidence {
  const r = receipt(branchId, facts);
  return {
    branch_id: branchId,
    profile_id: branchId.replace(/^branch-/, ''),
    runtime: 'claude',
    receipt_verified: true,
    receipt: r,
    reasons: [],
    model_proof: modelProof({ model: requestedModel, local_provider: null }, r.telemetry),
    execution_receipt_digest: digestOf(r),
    fork_receipt_digest: digestOf(['wrapper', branchId]),
    required_steps: REQUIRED,
  };
}

function unverified(branchId: string, reasons: readonly VerificationReason[]): BranchEvidence {
  return {
    branch_id: branchId,
    profile_id: branchId.replace(/^branch-/, ''),
    runtime: 'codex',
    receipt_verified: false,
    receipt: null,
    reasons,
    model_proof: modelProof({ model: 'gpt-5.1-codex-mini', local_provider: null }, null),
    execution_receipt_digest: null,
    fork_receipt_digest: null,
    required_steps: REQUIRED,
  };
}

const passed = (id: string, facts: ReceiptFacts = {}): BranchEvidence => verified(id, { status: 'passed', ...facts });
const failed = (id: string, facts: ReceiptFacts = {}): BranchEvidence => verified(id, { status: 'failed', failure_code: 'VERIFIER_FAILED', ...facts });

function compare(evidence: readonly BranchEvidence[]): Comparison {
  const out = compareBranches(evidence);
  // Every output is a valid `fork compare --json` document.
  expect(ComparisonSchema.parse(out)).toEqual(out);
  return out;
}

const branch = (c: Comparison, id: string) => {
  const found = c.branches.find((b) => b.branch_id === id);
  if (!found) throw new Error(`no ${id}`);
  return found;
};

describe('compare: recommend', () => {
  it('recommends the only comparable branch whose verifier passed', () => {
    const c = compare([passed('branch-a'), failed('branch-b')]);
    expect(c).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-a' });
    expect(branch(c, 'branch-a')).toMatchObject({ comparable: true, receipt_verified: true, status: 'passed', verifier_status: 'passed', reasons: [] });
    expect(branch(c, 'branch-b')).toMatchObject({ comparable: true, status: 'failed', failure_code: 'VERIFIER_FAILED', verifier_status: 'failed' });
  });

  it('a branch that touched a protected path broke the shared policy: not comparable', () => {
    const c = compare([failed('branch-a', { failure_code: 'POLICY_PROTECTED_PATH' }), passed('branch-b')]);
    expect(c).toMatchObject({ outcome: 'insufficient-evidence', recommended_branch_id: null });
    expect(branch(c, 'branch-a')).toMatchObject({ comparable: false, receipt_verified: true, reasons: ['runtime_did_not_complete'] });
  });

  it('one passing among several failing branches is recommended', () => {
    const c = compare([failed('branch-a'), failed('branch-b'), passed('branch-c'), failed('branch-d', { failure_code: 'POLICY_PROTECTED_PATH' })]);
    expect(c).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-c' });
  });
});

describe('compare: tie', () => {
  it('two passing branches tie', () => {
    const c = compare([passed('branch-a'), passed('branch-b')]);
    expect(c).toMatchObject({ outcome: 'tie', recommended_branch_id: null });
  });

  it('two failing branches tie: no comparable branch passed the verifier', () => {
    const c = compare([failed('branch-a'), failed('branch-b')]);
    expect(c).toMatchObject({ outcome: 'tie', recommended_branch_id: null, reasons: ['no comparable branch passed the verifier'] });
  });

  it('two passing and one failing branch tie between the passing ones', () => {
    const c = compare([passed('branch-a'), failed('branch-b'), passed('branch-c')]);
    expect(c.outcome).toBe('tie');
    expect(c.reasons.join(' ')).toContain('branch-a, branch-c');
    expect(c.reasons.join(' ')).not.toContain('branch-b');
  });
});

describe('compare: insufficient-evidence', () => {
  it('fewer than two branches', () => {
    expect(compare([])).toMatchObject({ outcome: 'insufficient-evidence', recommended_branch_id: null });
    expect(compare([passed('branch-a')])).toMatchObject({ outcome: 'insufficient-evidence', recommended_branch_id: null });
  });

  for (const reason of ['receipt_signature_invalid', 'receipt_digest_mismatch', 'wrapper_binding_mismatch', 'observation_mismatch', 'contract_digest_mismatch'] as const) {
    it(`a passing branch beside an unverified one (${reason}) is not recommended`, () => {
      const c = compare([passed('branch-a'), unverified('branch-b', [reason])]);
      expect(c).toMatchObject({ outcome: 'insufficient-evidence', recommended_branch_id: null, reasons: ['1 of 2 branches are comparable; at least 2 are needed'] });
      expect(branch(c, 'branch-b')).toMatchObject({ comparable: false, receipt_verified: false, reasons: [reason], status: null, verifier_status: 'unknown', model_proof: 'unknown' });
    });
  }

  it('a branch that was never collected is not comparable', () => {
    const c = compare([passed('branch-a'), unverified('branch-b', ['not_collected'])]);
    expect(c.outcome).toBe('insufficient-evidence');
    expect(branch(c, 'branch-b')).toMatchObject({ comparable: false, reasons: ['not_collected'], required_evidence: { required: 3, present: 0 } });
  });

  it('a verified receipt of a run that did not complete is not comparable: runtime_did_not_complete', () => {
    for (const code of ['RUNTIME_AUTH_FAILED', 'BUDGET_EXCEEDED', 'WORKTREE_CONTAINMENT_VIOLATION', 'STOPPED_BY_OPERATOR'] as const) {
      const c = compare([passed('branch-a'), failed('branch-b', { failure_code: code, verifier: 'not_run', steps_present: 0 })]);
      expect(c.outcome).toBe('insufficient-evidence');
      expect(branch(c, 'branch-b')).toMatchObject({ comparable: false, receipt_verified: true, reasons: ['runtime_did_not_complete'], failure_code: code });
    }
  });

  it('no branch verified at all', () => {
    const c = compare([unverified('branch-a', ['signer_key_mismatch']), unverified('branch-b', ['signer_key_mismatch'])]);
    expect(c).toMatchObject({ outcome: 'insufficient-evidence', reasons: ['0 of 2 branches are comparable; at least 2 are needed'] });
  });

  it('facts handed over without verification never reach the output', () => {
    const smuggled: BranchEvidence = { ...unverified('branch-b', ['receipt_signature_invalid']), receipt: receipt('branch-b', { cost_usd: 0.01 }) };
    const c = compare([passed('branch-a'), smuggled]);
    expect(c.outcome).toBe('insufficient-evidence');
    expect(branch(c, 'branch-b')).toMatchObject({ comparable: false, receipt_verified: false, status: null, verifier_status: 'unknown', cost_usd: null, duration_ms: null, files_changed: null });
  });
});

describe('compare: verifier completeness dominates', () => {
  it('a passing branch missing required verifier evidence does not beat a complete one', () => {
    // Its receipt claims a pass, but only 2 of the 3 steps the contract requires have evidence.
    const incomplete = passed('branch-a', { steps_present: 2, cost_usd: 0.01, duration_ms: 1 });
    const c = compare([incomplete, passed('branch-b', { cost_usd: 9, duration_ms: 99_999 })]);
    expect(branch(c, 'branch-a')).toMatchObject({ required_evidence: { required: 3, present: 2 }, warnings: ['verifier_evidence_incomplete'] });
    expect(branch(c, 'branch-b').warnings).toEqual([]);
    expect(c).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-b' });
  });

  it('counts required steps only: a receipt whose result_symlinks step ran too shows 3 of 3, not 4 of 3 (issue 30)', () => {
    const c = compare([passed('branch-a', { result_symlinks: true }), passed('branch-b', { result_symlinks: true })]);
    for (const b of c.branches) expect(b).toMatchObject({ required_evidence: { required: 3, present: 3 }, warnings: [] });
  });

  it('a step that is not required never stands in for a required one that did not run', () => {
    // result_symlinks ran, the workflow verifier did not: 2 of 3, so the pass is incomplete.
    const incomplete = passed('branch-a', { result_symlinks: true, steps_present: 2 });
    const c = compare([incomplete, passed('branch-b', { result_symlinks: true })]);
    expect(branch(c, 'branch-a')).toMatchObject({ required_evidence: { required: 3, present: 2 }, warnings: ['verifier_evidence_incomplete'] });
    expect(c).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-b' });
  });

  it('incomplete evidence against a failing branch is no recommendation', () => {
    const c = compare([passed('branch-a', { steps_present: 2 }), failed('branch-b')]);
    expect(c.outcome).toBe('tie');
    expect(c.recommended_branch_id).toBeNull();
  });
});

describe('compare: cost and speed never decide', () => {
  it('a cheaper, faster, smaller failing branch loses to a passing one', () => {
    const c = compare([
      failed('branch-a', { cost_usd: 0.0001, duration_ms: 10, diff: { files_changed: 1, insertions: 1, deletions: 0 } }),
      passed('branch-b', { cost_usd: 50, duration_ms: 3_600_000, diff: { files_changed: 40, insertions: 900, deletions: 800 } }),
    ]);
    expect(c).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-b' });
  });

  it('two passing branches with very different cost and duration tie', () => {
    const c = compare([passed('branch-a', { cost_usd: 0.001, duration_ms: 5 }), passed('branch-b', { cost_usd: 1000, duration_ms: 10_000_000 })]);
    expect(c).toMatchObject({ outcome: 'tie', recommended_branch_id: null });
    expect(c.reasons[0]).toContain('cost and speed do not break the tie');
  });

  it('a passing branch with unknown cost and duration ties with a known one: unknown is not zero', () => {
    const c = compare([passed('branch-a', { cost_usd: null, duration_ms: null }), passed('branch-b', { cost_usd: 3, duration_ms: 100 })]);
    expect(c.outcome).toBe('tie');
  });

  it('a cheap verified pass does not win over a missing proof: insufficient evidence, not a recommendation', () => {
    const c = compare([passed('branch-a', { cost_usd: 0 }), unverified('branch-b', ['receipt_missing'])]);
    expect(c.outcome).toBe('insufficient-evidence');
  });
});

describe('compare: unknown stays null', () => {
  it('missing cost, duration, tokens, diff and model are null with warnings, never 0', () => {
    const c = compare([
      passed('branch-a', { cost_usd: null, duration_ms: null, tokens: null, diff: null, observed_model: null }),
      failed('branch-b'),
    ]);
    const a = branch(c, 'branch-a');
    expect(a).toMatchObject({ cost_usd: null, duration_ms: null, files_changed: null, insertions: null, deletions: null, model_proof: 'unknown' });
    expect(a.model).toEqual({ requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: null, status: 'unknown' });
    expect(a.warnings).toEqual(['cost_unknown', 'duration_unknown', 'tokens_unknown', 'model_unproven']);
    const json = JSON.parse(JSON.stringify(c)) as { branches: Record<string, unknown>[] };
    const [first] = json.branches;
    for (const field of ['cost_usd', 'duration_ms', 'files_changed', 'insertions', 'deletions']) expect(first?.[field]).toBeNull();
  });

  it('an unverified branch reports every fact as null or unknown', () => {
    const c = compare([passed('branch-a'), unverified('branch-b', ['receipt_malformed'])]);
    expect(branch(c, 'branch-b')).toEqual({
      branch_id: 'branch-b',
      profile_id: 'b',
      runtime: 'codex',
      comparable: false,
      receipt_verified: false,
      reasons: ['receipt_malformed'],
      status: null,
      failure_code: null,
      verifier_status: 'unknown',
      required_evidence: { required: 3, present: 0 },
      model_proof: 'unknown',
      model: { requested_model: 'gpt-5.1-codex-mini', requested_provider: null, observed_model: null, status: 'unknown' },
      files_changed: null,
      insertions: null,
      deletions: null,
      duration_ms: null,
      cost_usd: null,
      input_tokens: null,
      output_tokens: null,
      tokens_source: null,
      wire: null,
      warnings: ['model_unproven'],
      containment: null,
    });
  });

  it('issue 28: a branch with wire facts shows the wire tokens, the proof from the wire and its disagreement warnings', () => {
    const exchange = { at: '2026-01-02T03:04:05.000Z', method: 'POST', path: '/v1/messages', status: 200, first_byte_ms: 1, duration_ms: 2, requested_model: 'claude-sonnet-4-5' } as const;
    const wire = wireFactsOf([
      { ...exchange, outcome: 'completed', refusal: null, served_model: 'claude-sonnet-4-5', input_tokens: 120, output_tokens: 50 },
      { ...exchange, outcome: 'refused', refusal: 'server_tool_refused', status: null, served_model: null, input_tokens: null, output_tokens: null, first_byte_ms: null },
    ]);
    const base = passed('branch-a');
    const r = base.receipt === null ? null : { ...base.receipt, wire };
    const withWire: BranchEvidence = { ...base, receipt: r, model_proof: modelProof({ model: 'claude-sonnet-4-5', local_provider: null }, r?.telemetry ?? null, wire) };
    const c = compare([withWire, passed('branch-b')]);
    expect(branch(c, 'branch-a')).toMatchObject({ input_tokens: 120, output_tokens: 50, tokens_source: 'gateway_wire', wire, model_proof: 'passed' });
    expect(branch(c, 'branch-a').warnings).toEqual(['wire_telemetry_tokens_mismatch', 'gateway_refusals']);
    expect(branch(c, 'branch-b')).toMatchObject({ input_tokens: 100, output_tokens: 50, tokens_source: 'runtime_telemetry', wire: null });
    // A wire sum missing an answer's usage is unknown, not a low number.
    const partial = wireFactsOf([{ ...exchange, outcome: 'completed', refusal: null, served_model: 'claude-sonnet-4-5', input_tokens: 1, output_tokens: null }]);
    const cut = compare([{ ...withWire, receipt: r === null ? null : { ...r, wire: partial } }, passed('branch-b')]);
    expect(branch(cut, 'branch-a')).toMatchObject({ input_tokens: null, output_tokens: null, tokens_source: null });
    expect(branch(cut, 'branch-a').warnings).toContain('tokens_unknown');
  });

  it('carries the verified receipt containment, which never decides; unverified facts stay out', () => {
    const contained = { mode: 'contained', backend: 'bubblewrap', backend_version: 'bubblewrap 0.8.0', policy_digest: `sha256:${'7'.repeat(64)}` } as const;
    const withContainment = (e: BranchEvidence, containment: ExecutionReceipt['containment']): BranchEvidence =>
      e.receipt === null ? e : { ...e, receipt: { ...e.receipt, ...(containment ? { containment } : {}) } };
    const c = compare([
      withContainment(passed('branch-a'), contained),
      withContainment(passed('branch-b'), { mode: 'runtime-only' }),
      passed('branch-c'),
      { ...unverified('branch-d', ['receipt_malformed']), receipt: { ...receipt('branch-d'), containment: contained } },
    ]);
    expect(branch(c, 'branch-a').containment).toEqual(contained);
    expect(branch(c, 'branch-b').containment).toEqual({ mode: 'runtime-only' });
    expect(branch(c, 'branch-c').containment).toBeNull();
    expect(branch(c, 'branch-d').containment).toBeNull();
    expect(c.outcome).toBe('tie');
  });

  it('a known zero stays zero and is not reported as unknown', () => {
    const c = compare([passed('branch-a', { cost_usd: 0, duration_ms: 0, tokens: 0, diff: { files_changed: 0, insertions: 0, deletions: 0 } }), failed('branch-b')]);
    expect(branch(c, 'branch-a')).toMatchObject({ cost_usd: 0, duration_ms: 0, files_changed: 0, insertions: 0, deletions: 0, warnings: [] });
  });

  it('a model mismatch is reported as a warning beside the facts', () => {
    const c = compare([verified('branch-a', { observed_model: 'claude-opus-4-1' }), failed('branch-b')]);
    expect(branch(c, 'branch-a')).toMatchObject({ model_proof: 'failed', warnings: ['model_mismatch'] });
  });
});

describe('compare: deterministic', () => {
  const permutations = <T>(items: readonly T[]): T[][] =>
    items.length <= 1 ? [[...items]] : items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));

  const sets: [string, BranchEvidence[]][] = [
    ['recommend', [passed('branch-codex'), failed('branch-claude'), unverified('branch-zeta', ['receipt_missing'])]],
    ['tie', [passed('branch-b', { cost_usd: 1 }), passed('branch-a', { cost_usd: 2 }), failed('branch-c')]],
    ['insufficient-evidence', [unverified('branch-b', ['not_collected']), passed('branch-a'), unverified('branch-c', ['observation_mismatch'])]],
  ];
  for (const [outcome, evidence] of sets) {
    it(`the same ${outcome} output for every input order`, () => {
      const outputs = permutations(evidence).map((order) => JSON.stringify(compare(order)));
      expect(outputs).toHaveLength(6);
      expect(new Set(outputs).size).toBe(1);
      const c = compare(evidence);
      expect(c.outcome).toBe(outcome);
      expect(c.branches.map((b) => b.branch_id)).toEqual([...c.branches.map((b) => b.branch_id)].sort());
    });
  }

  it('does not modify its input', () => {
    const evidence = [passed('branch-b'), failed('branch-a')];
    const before = JSON.stringify(evidence);
    compare(evidence);
    expect(JSON.stringify(evidence)).toBe(before);
  });
});
