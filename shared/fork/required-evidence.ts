import type { VerifierStep } from './receipts';

/** The verifier steps a contract can require; `result_symlinks` also runs (a guard before them) but is not one. */
export type RequiredStepId = Extract<VerifierStep['id'], 'protected_paths' | 'git_diff_check' | 'workflow_verifier'>;

/** How many of a branch's required verifier steps ran (passed or failed). */
export interface RequiredEvidence {
  readonly required: number;
  readonly present: number;
}

/**
 * The verifier steps a contract requires: the protected-paths check and `git diff --check` always,
 * and the workflow's own verifier when the contract names a command. Without a readable contract,
 * the two built-in ones.
 */
export function requiredVerifierSteps(verifier: { readonly command: unknown } | null): RequiredStepId[] {
  return ['protected_paths', 'git_diff_check', ...(verifier?.command ? (['workflow_verifier'] as const) : [])];
}

/**
 * The required-evidence count (issue 30: it read "4 of 3" once `result_symlinks` ran too): each
 * required step that ran counts once, a step that is not required never, so `present` is never
 * more than `required`. The one rule for the comparison, and so for the CLI, Mission Control and the proof.
 */
export function requiredEvidence(required: readonly RequiredStepId[], steps: readonly Pick<VerifierStep, 'id' | 'status'>[]): RequiredEvidence {
  const ran = new Set<string>(steps.filter((s) => s.status !== 'not_run').map((s) => s.id));
  const ids = new Set(required);
  return { required: ids.size, present: [...ids].filter((id) => ran.has(id)).length };
}

/** The count in words, e.g. "3 of 3 required steps ran": the same wording in the CLI and Mission Control. */
export function describeRequiredEvidence({ required, present }: RequiredEvidence): string {
  return `${present} of ${required} required ${required === 1 ? 'step' : 'steps'} ran`;
}
