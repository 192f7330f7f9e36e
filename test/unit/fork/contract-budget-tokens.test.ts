/**
 * Issue 28: `--budget-tokens` is frozen in the contract's budget as an optional field, so a fork
 * without it keeps exactly today's contract digest. The golden digest below was computed from this
 * fixed contract with the code from before the field existed.
 */
import { describe, expect, it } from 'vitest';
import { digestOf } from '../../../shared/digest';
import { budgetTokensOf, ContractV1Schema, type ContractV1 } from '../../../shared/fork/contract';

const FIXED_CONTRACT = {
  objective_digest: `sha256:${'1'.repeat(64)}`,
  scope: { repository: 'whole', effects: 'branch_worktree' },
  policy: { protected_paths: ['.citadel/**'], landing: 'selection_and_confirmation' },
  budget: { max_duration_seconds: 1800, max_cost_usd: null, max_attempts: 1 },
  workflow: { source: 'builtin', steps: [{ id: 'implement', instruction: 'Make the change.' }], file_path_in_repo: null, file_digest: null },
  verifier: { builtin: ['git_diff_check'], command: null },
  base_revision: 'a'.repeat(40),
};
const GOLDEN_DIGEST = 'sha256:46514fa917f2fe61876e5589df050b91a3ac3f9e9cbb5e1cd8828ae71d2244e2';

describe('the token budget in the contract', () => {
  it('a contract without a token budget parses to itself and keeps the digest it had before the field existed', () => {
    const parsed: ContractV1 = ContractV1Schema.parse(FIXED_CONTRACT);
    expect(parsed).toEqual(FIXED_CONTRACT);
    expect(digestOf(parsed)).toBe(GOLDEN_DIGEST);
    expect(budgetTokensOf(parsed)).toBeNull();
  });

  it('a token budget is bound by the digest and read back by budgetTokensOf', () => {
    const withBudget = ContractV1Schema.parse({ ...FIXED_CONTRACT, budget: { ...FIXED_CONTRACT.budget, max_tokens: 50_000 } });
    expect(budgetTokensOf(withBudget)).toBe(50_000);
    expect(digestOf(withBudget)).not.toBe(GOLDEN_DIGEST);
  });

  it.each([0, -1, 1.5, 1e10])('refuses a token budget of %s in a contract', (tokens) => {
    expect(ContractV1Schema.safeParse({ ...FIXED_CONTRACT, budget: { ...FIXED_CONTRACT.budget, max_tokens: tokens } }).success).toBe(false);
  });
});
