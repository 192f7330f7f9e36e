import { describe, expect, it } from 'vitest';
import { compareBranches, type BranchEvidence } from '../../../shared/fork/compare';
import { comparisonReading } from '../../../shared/fork/comparison-reading';
import { evidence, receipt } from '../../component/support/fixtures';

const STEP = { id: 'git_diff_check', exit_code: 1, timed_out: false, duration_ms: 5, output_digest: null } as const;
const failedVerifier = (id: string): BranchEvidence =>
  evidence(id, receipt(id, { status: 'failed', failure_code: 'VERIFIER_FAILED', verifier: { status: 'failed', steps: [{ ...STEP, status: 'failed' }] } }));
const stopped = (id: string): BranchEvidence =>
  evidence(id, receipt(id, { status: 'failed', failure_code: 'STOPPED_BY_OPERATOR', verifier: { status: 'not_run', steps: [{ ...STEP, status: 'not_run', exit_code: null, duration_ms: null }] } }));
const passing = (id: string): BranchEvidence => evidence(id, receipt(id));
const uncollected = (id: string): BranchEvidence => ({ ...evidence(id, null), reasons: ['not_collected'] });

describe('how a comparison reads', () => {
  it('says "all branches failed" where the engine says tie because no comparable branch passed', () => {
    const comparison = compareBranches([failedVerifier('branch-claude'), failedVerifier('branch-codex'), failedVerifier('branch-gemini')]);
    expect(comparison.outcome).toBe('tie');
    expect(comparisonReading(comparison)).toEqual({ kind: 'all_failed', uncollected: [], failed: { verifier: 3, before_verifier: 0 } });
  });

  it('says "all branches failed" where too few are comparable because the others failed their run', () => {
    const comparison = compareBranches([failedVerifier('branch-claude'), stopped('branch-codex')]);
    expect(comparison.outcome).toBe('insufficient-evidence');
    expect(comparisonReading(comparison)).toMatchObject({ kind: 'all_failed', failed: { verifier: 1, before_verifier: 1 } });
  });

  it('says a result is still missing rather than "insufficient evidence" while a branch is not collected', () => {
    const comparison = compareBranches([passing('branch-claude'), uncollected('branch-codex')]);
    expect(comparison.outcome).toBe('insufficient-evidence');
    expect(comparisonReading(comparison)).toMatchObject({ kind: 'incomplete', uncollected: ['branch-codex'] });
  });

  it('keeps the engine’s outcome otherwise, and an unverified receipt is never read as a failure', () => {
    expect(comparisonReading(compareBranches([passing('branch-claude'), failedVerifier('branch-codex')])).kind).toBe('recommend');
    expect(comparisonReading(compareBranches([passing('branch-claude'), passing('branch-codex')])).kind).toBe('tie');
    expect(comparisonReading(compareBranches([failedVerifier('branch-claude'), evidence('branch-codex', null)])).kind).toBe('insufficient-evidence');
    expect(comparisonReading(compareBranches([passing('branch-claude'), stopped('branch-codex')])).kind).toBe('insufficient-evidence');
  });
});
