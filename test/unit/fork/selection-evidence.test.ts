/**
 * The one rule for selecting against the evidence (issue 14, item 4), shared by the orchestrator
 * that enforces it and Mission Control that shows it: a branch needs an acknowledgement unless it is
 * the recommendation, or the comparison is a tie and its verifier passed with every required step.
 * With fewer than two comparable branches nothing was compared, so every branch needs it (issue 29).
 */
import { describe, expect, it } from 'vitest';
import type { ComparedBranch, Comparison } from '../../../shared/fork/compare';
import { describeEvidence, evidenceAgainst } from '../../../shared/fork/selection-evidence';

type Facts = Pick<ComparedBranch, 'verifier_status' | 'status' | 'failure_code' | 'required_evidence'>;
const PASSED: Facts = { verifier_status: 'passed', status: 'passed', failure_code: null, required_evidence: { required: 3, present: 3 } };
const FAILED: Facts = { verifier_status: 'failed', status: 'failed', failure_code: 'VERIFIER_FAILED', required_evidence: { required: 3, present: 3 } };

function comparison(outcome: Comparison['outcome'], recommended: string | null, branches: Record<string, Facts>): Parameters<typeof evidenceAgainst>[0] {
  return { outcome, recommended_branch_id: recommended, branches: Object.entries(branches).map(([branch_id, facts]) => ({ branch_id, ...facts }) as ComparedBranch) };
}

/** The evidence against selecting `id`, in words; throws when selecting it agrees with the evidence. */
function say(c: Parameters<typeof evidenceAgainst>[0], id: string): string {
  const e = evidenceAgainst(c, id);
  if (e === null) throw new Error(`${id} agrees with the evidence`);
  return describeEvidence(id, e);
}

describe('evidence against a selection', () => {
  it('the recommendation agrees; another branch, passed or failed, is against it', () => {
    const c = comparison('recommend', 'branch-claude', { 'branch-claude': PASSED, 'branch-codex': FAILED, 'branch-gemini': PASSED });
    expect(evidenceAgainst(c, 'branch-claude')).toBeNull();
    expect(evidenceAgainst(c, 'branch-codex')).toEqual({ outcome: 'recommend', recommended_branch_id: 'branch-claude', ...FAILED });
    expect(say(c, 'branch-codex')).toBe("branch-codex's verifier failed (VERIFIER_FAILED); the comparison recommends branch-claude");
    expect(say(c, 'branch-gemini')).toBe('the comparison recommends branch-claude');
  });

  it('without a recommendation: a proven pass agrees; a failure, no verifier proof or missing steps does not', () => {
    const tie = comparison('tie', null, {
      'branch-a': PASSED,
      'branch-b': PASSED,
      'branch-c': { ...PASSED, required_evidence: { required: 3, present: 2 } },
      'branch-d': { verifier_status: 'not_run', status: 'failed', failure_code: 'BUDGET_EXCEEDED', required_evidence: { required: 3, present: 0 } },
      'branch-e': { verifier_status: 'unknown', status: null, failure_code: null, required_evidence: { required: 3, present: 0 } },
    });
    expect(evidenceAgainst(tie, 'branch-a')).toBeNull();
    expect(evidenceAgainst(tie, 'branch-b')).toBeNull();
    expect(say(tie, 'branch-c')).toBe("branch-c's verifier ran only 2 of 3 required steps; the comparison recommends no branch (a tie)");
    expect(say(tie, 'branch-d')).toBe("branch-d's verifier did not run (BUDGET_EXCEEDED); the comparison recommends no branch (a tie)");
    expect(say(tie, 'branch-e')).toBe('branch-e has no verifier proof; the comparison recommends no branch (a tie)');
    const alone = comparison('insufficient-evidence', null, { 'branch-a': FAILED });
    expect(say(alone, 'branch-a')).toBe("branch-a's verifier failed (VERIFIER_FAILED); the comparison recommends no branch (fewer than two branches have a verified, comparable result, so none was compared)");
  });

  it('with fewer than two comparable branches, even a proven pass was compared with nothing and needs the acknowledgement', () => {
    const alone = comparison('insufficient-evidence', null, {
      'branch-a': PASSED,
      'branch-b': { verifier_status: 'not_run', status: 'failed', failure_code: 'STOPPED_BY_OPERATOR', required_evidence: { required: 3, present: 0 } },
    });
    expect(evidenceAgainst(alone, 'branch-a')).toEqual({ outcome: 'insufficient-evidence', recommended_branch_id: null, ...PASSED });
    expect(say(alone, 'branch-a')).toBe(
      "branch-a's verifier passed; the comparison recommends no branch (fewer than two branches have a verified, comparable result, so none was compared)",
    );
  });

  it('a branch the comparison does not list is not judged here (the caller refuses it as unknown)', () => {
    expect(evidenceAgainst(comparison('recommend', 'branch-claude', { 'branch-claude': PASSED }), 'branch-nope')).toBeNull();
  });
});
