import { CitadelError } from '../../shared/errors';
import { DEFAULT_BUDGET, MAX_ATTEMPTS_LIMIT, MAX_BUDGET_TOKENS, type Budget } from '../../shared/fork/contract';

const MAX_BUDGET_SECONDS = 7 * 24 * 3600;

/** A budget number the operator gives, each checked on its own so the New Fork preview can say which is wrong. */
export type BudgetNumber = 'budget_seconds' | 'max_attempts' | 'budget_tokens';

const RULES: Readonly<Record<BudgetNumber, { readonly max: number; readonly what: string }>> = {
  budget_seconds: { max: MAX_BUDGET_SECONDS, what: `The time budget must be a whole number of seconds from 1 to ${MAX_BUDGET_SECONDS} (7 days)` },
  max_attempts: { max: MAX_ATTEMPTS_LIMIT, what: `Attempts per branch must be a whole number from 1 to ${MAX_ATTEMPTS_LIMIT}` },
  budget_tokens: { max: MAX_BUDGET_TOKENS, what: `The token budget must be a whole number of tokens from 1 to ${MAX_BUDGET_TOKENS.toLocaleString('en-US')}` },
};

/** Refuses a given number outside its range with BUDGET_INVALID, naming the value; absent is the default. */
export function checkBudgetNumber(field: BudgetNumber, value: number | undefined): void {
  if (value === undefined) return;
  const { max, what } = RULES[field];
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new CitadelError('BUDGET_INVALID', `${what}, not ${value}.`, { details: { field, value } });
  }
}

/** The contract's budget from the numbers given, each checked first. */
export function validBudget(seconds: number | undefined, attempts: number | undefined, tokens: number | undefined): Budget {
  checkBudgetNumber('budget_seconds', seconds);
  checkBudgetNumber('max_attempts', attempts);
  checkBudgetNumber('budget_tokens', tokens);
  // Absent, not null, without a token budget: every contract without one keeps its digest.
  return {
    ...DEFAULT_BUDGET,
    ...(seconds === undefined ? {} : { max_duration_seconds: seconds }),
    ...(attempts === undefined ? {} : { max_attempts: attempts }),
    ...(tokens === undefined ? {} : { max_tokens: tokens }),
  };
}
