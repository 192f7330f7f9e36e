/**
 * Issue 30: the required-evidence count counts the required verifier steps that ran, each once, and
 * nothing else; it read "4 of 3 required steps ran" once `result_symlinks` ran before the others.
 */
import { describe, expect, it } from 'vitest';
import type { VerifierStep } from '../../../shared/fork/receipts';
import { describeRequiredEvidence, requiredEvidence, requiredVerifierSteps } from '../../../shared/fork/required-evidence';

type Step = Pick<VerifierStep, 'id' | 'status'>;
const ran = (id: VerifierStep['id'], status: Step['status'] = 'passed'): Step => ({ id, status });

describe('requiredVerifierSteps', () => {
  it('requires the protected-paths check and git diff --check, and the workflow verifier only when the contract names a command', () => {
    expect(requiredVerifierSteps({ command: { command: 'npm', args: ['test'] } })).toEqual(['protected_paths', 'git_diff_check', 'workflow_verifier']);
    expect(requiredVerifierSteps({ command: null })).toEqual(['protected_paths', 'git_diff_check']);
    expect(requiredVerifierSteps(null)).toEqual(['protected_paths', 'git_diff_check']);
  });
});

describe('requiredEvidence', () => {
  const required = requiredVerifierSteps({ command: { command: 'npm', args: ['test'] } });

  it('does not count result_symlinks: a receipt with all four steps run is 3 of 3', () => {
    const steps = [ran('result_symlinks'), ran('protected_paths'), ran('git_diff_check'), ran('workflow_verifier')];
    expect(requiredEvidence(required, steps)).toEqual({ required: 3, present: 3 });
  });

  it('counts a required step that failed (it ran) but not one that did not run', () => {
    const steps = [ran('result_symlinks'), ran('protected_paths'), ran('git_diff_check', 'failed'), ran('workflow_verifier', 'not_run')];
    expect(requiredEvidence(required, steps)).toEqual({ required: 3, present: 2 });
  });

  it('a step that is not required never stands in for a missing required one', () => {
    // Only result_symlinks ran (it refused the branch): none of the required steps did.
    const steps = [ran('result_symlinks', 'failed'), ran('protected_paths', 'not_run'), ran('git_diff_check', 'not_run'), ran('workflow_verifier', 'not_run')];
    expect(requiredEvidence(required, steps)).toEqual({ required: 3, present: 0 });
  });

  it('never counts more than required: a step listed twice counts once', () => {
    const steps = [ran('protected_paths'), ran('git_diff_check'), ran('git_diff_check'), ran('workflow_verifier'), ran('workflow_verifier')];
    expect(requiredEvidence(required, steps)).toEqual({ required: 3, present: 3 });
  });

  it('a receipt from before result_symlinks existed counts as it always did', () => {
    expect(requiredEvidence(required, [ran('protected_paths'), ran('git_diff_check'), ran('workflow_verifier')])).toEqual({ required: 3, present: 3 });
    expect(requiredEvidence(requiredVerifierSteps({ command: null }), [ran('git_diff_check')])).toEqual({ required: 2, present: 1 });
  });

  it('no receipt: nothing ran', () => {
    expect(requiredEvidence(required, [])).toEqual({ required: 3, present: 0 });
  });
});

describe('describeRequiredEvidence', () => {
  it('says the count in words', () => {
    expect(describeRequiredEvidence({ required: 3, present: 3 })).toBe('3 of 3 required steps ran');
    expect(describeRequiredEvidence({ required: 1, present: 0 })).toBe('0 of 1 required step ran');
  });
});
