/**
 * Deciding from any settled fork (issue 29, item 1): the one rule the orchestrator enforces and the
 * Select view shows. Nothing is selected while a branch can still change; then any comparable
 * branch can be, from a ready, blocked or failed fork, with the acknowledgement when the
 * comparison did not recommend it.
 */
import { describe, expect, it } from 'vitest';
import type { ComparedBranch, Comparison } from '../../../shared/fork/compare';
import type { BranchState, ForkState } from '../../../shared/fork/fork-record';
import { branchSelectability, forkSelectionRefusal } from '../../../shared/fork/selectability';

type Facts = Pick<ComparedBranch, 'comparable' | 'receipt_verified' | 'reasons' | 'verifier_status' | 'status' | 'failure_code' | 'required_evidence'>;
const PASSED: Facts = { comparable: true, receipt_verified: true, reasons: [], verifier_status: 'passed', status: 'passed', failure_code: null, required_evidence: { required: 2, present: 2 } };
const STOPPED: Facts = {
  comparable: false,
  receipt_verified: true,
  reasons: ['runtime_did_not_complete'],
  verifier_status: 'not_run',
  status: 'failed',
  failure_code: 'STOPPED_BY_OPERATOR',
  required_evidence: { required: 2, present: 0 },
};
const UNCOLLECTED: Facts = { comparable: false, receipt_verified: false, reasons: ['not_collected'], verifier_status: 'unknown', status: null, failure_code: null, required_evidence: { required: 2, present: 0 } };

const fork = (state: ForkState, branches: Record<string, BranchState>) => ({ state, branches: Object.entries(branches).map(([branch_id, s]) => ({ branch_id, state: s })) });

function comparison(outcome: Comparison['outcome'], recommended: string | null, branches: Record<string, Facts>): Parameters<typeof branchSelectability>[1] {
  return { outcome, recommended_branch_id: recommended, branches: Object.entries(branches).map(([branch_id, facts]) => ({ branch_id, ...facts }) as ComparedBranch) };
}

describe('what can be selected now', () => {
  it('nothing while a branch is pending, running or unknown, said in plain words', () => {
    expect(forkSelectionRefusal(fork('running', { 'branch-a': 'passed', 'branch-b': 'running' }))).toEqual({
      code: 'FORK_STATE_CONFLICT',
      message: 'branch-b is still running; select once every branch has settled',
      details: { state: 'running', unsettled: ['branch-b'] },
    });
    expect(forkSelectionRefusal(fork('running', { 'branch-a': 'running', 'branch-b': 'running', 'branch-c': 'pending', 'branch-d': 'unknown' }))?.message).toBe(
      'branch-a and branch-b are still running; branch-c has not run yet; the outcome of branch-d is not known yet; select once every branch has settled',
    );
    // The running branch is refused before the branch asked for is judged, even a passing one.
    const verdict = branchSelectability(fork('running', { 'branch-a': 'passed', 'branch-b': 'running' }), comparison('insufficient-evidence', null, { 'branch-a': PASSED, 'branch-b': UNCOLLECTED }), 'branch-a');
    expect(verdict).toMatchObject({ selectable: false, refusal: { code: 'FORK_STATE_CONFLICT' } });
  });

  it('a settled ready, selected, blocked or failed fork can be decided; a landed or unknown one cannot', () => {
    const settled = { 'branch-a': 'passed', 'branch-b': 'failed' } as const;
    for (const state of ['ready', 'selected', 'blocked', 'failed'] as const) expect(forkSelectionRefusal(fork(state, settled)), state).toBeNull();
    expect(forkSelectionRefusal(fork('blocked', { 'branch-a': 'passed', 'branch-b': 'blocked' }))).toBeNull();
    expect(forkSelectionRefusal(fork('landed', settled))).toMatchObject({ code: 'FORK_STATE_CONFLICT', message: 'the fork has already landed; a landed fork is not selected from again' });
    expect(forkSelectionRefusal(fork('unknown', settled))).toMatchObject({ code: 'FORK_STATE_CONFLICT', details: { state: 'unknown' } });
  });

  it('one passing and one stopped branch: the passing one needs the acknowledgement; the stopped one has nothing to select', () => {
    const f = fork('failed', { 'branch-a': 'passed', 'branch-b': 'failed' });
    const c = comparison('insufficient-evidence', null, { 'branch-a': PASSED, 'branch-b': STOPPED });
    expect(branchSelectability(f, c, 'branch-a')).toEqual({
      selectable: true,
      against: { outcome: 'insufficient-evidence', recommended_branch_id: null, verifier_status: 'passed', status: 'passed', failure_code: null, required_evidence: { required: 2, present: 2 } },
    });
    expect(branchSelectability(f, c, 'branch-b')).toEqual({
      selectable: false,
      refusal: {
        code: 'SELECTION_REFUSED',
        message: 'branch-b cannot be selected: it ended STOPPED_BY_OPERATOR, which leaves no result the verifier judged',
        details: { state: 'failed', reasons: ['runtime_did_not_complete'] },
      },
    });
    expect(branchSelectability(f, comparison('insufficient-evidence', null, { 'branch-a': PASSED, 'branch-b': UNCOLLECTED }), 'branch-b')).toMatchObject({
      selectable: false,
      refusal: { code: 'SELECTION_REFUSED', message: 'branch-b cannot be selected: it has no verified result (not_collected)' },
    });
    expect(branchSelectability(f, c, 'branch-z')).toMatchObject({ selectable: false, refusal: { code: 'BRANCH_NOT_FOUND' } });
  });

  it('the recommended branch of a ready fork agrees with the evidence', () => {
    const f = fork('ready', { 'branch-a': 'passed', 'branch-b': 'failed' });
    const c = comparison('recommend', 'branch-a', { 'branch-a': PASSED, 'branch-b': { ...PASSED, comparable: true, verifier_status: 'failed', status: 'failed', failure_code: 'VERIFIER_FAILED' } });
    expect(branchSelectability(f, c, 'branch-a')).toEqual({ selectable: true, against: null });
    expect(branchSelectability(f, c, 'branch-b')).toMatchObject({ selectable: true, against: { recommended_branch_id: 'branch-a', verifier_status: 'failed' } });
  });
});
