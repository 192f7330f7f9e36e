import type { CitadelErrorData, ErrorCode, Violation } from '../../../shared/errors';
import type { BlockedReason } from '../../../shared/fork/fork-record';
import type { LandingCheckName } from '../../../shared/fork/landing';
import type { ReadinessReport } from '../../../shared/runtime/readiness';
import type { FailureCode } from '../../../shared/runtime/telemetry';
import { plural } from './format';

/** Operator-facing words for the stable codes; the codes themselves are always shown beside them. */
const FAILURES = {
  RUNTIME_NOT_FOUND: 'The runtime executable was not found on PATH. Install it, then retry the branch.',
  RUNTIME_SHIM_UNSUPPORTED: 'The runtime is installed only as a command shim Citadel does not know, and Citadel will not start it through a command interpreter.',
  RUNTIME_AUTH_FAILED: 'The runtime reported an authentication failure: sign in to it or configure its API key.',
  RUNTIME_API_ERROR: 'The runtime reported an error from its model API.',
  RUNTIME_PROVIDER_UNAVAILABLE: 'The local model provider did not answer, or does not serve the requested model.',
  RUNTIME_EXITED_NONZERO: 'The runtime exited with a non-zero status.',
  RUNTIME_OUTPUT_UNPARSABLE: "The runtime's machine output could not be parsed, so its outcome is not trusted.",
  RUNTIME_OUTCOME_UNKNOWN: 'Citadel cannot tell how the run ended.',
  BUDGET_EXCEEDED: 'The branch ran past its time budget and was stopped.',
  STOPPED_BY_OPERATOR: 'An operator stopped this branch.',
  WORKTREE_CONTAINMENT_VIOLATION: 'A worktree or branch changed outside Citadel (checkout, commit, removal or move), so the verifier did not run.',
  POLICY_PROTECTED_PATH: 'The diff touches a protected path, such as the workflow file itself.',
  POLICY_SYMLINK_ESCAPE: 'The result adds or changes a symbolic link that points outside the worktree (an absolute target, or one that climbs out of it), so no verifier ran.',
  VERIFIER_FAILED: 'The verifier ran and failed.',
  VERIFICATION_TREE_MISMATCH: 'After removing every untracked and ignored file, the worktree still did not hold exactly the result commit, so the verifier did not run.',
} as const satisfies Record<FailureCode, string>;

const BLOCKED = {
  launch_in_doubt: 'Citadel cannot tell whether the runtime was launched. An operator must decide (Mark failed or Retry) before anything is retried.',
  process_lost: 'The runtime process was lost before its result was collected. An operator must decide: Mark failed or Retry.',
  collect_failed: "The branch's result could not be collected. An operator must decide: Mark failed or Retry.",
  start_refused: 'The branch could not be started, and nothing ran. Fix what its code names, then Retry (it uses no attempt), or Mark failed.',
  contract_unverifiable: "The fork's stored contract no longer matches the one it was created with, so none of its evidence can verify. Mark failed, then clean the fork.",
} as const satisfies Record<BlockedReason, string>;

const LANDING_CHECKS = {
  selection_current: 'The selection matches the latest fork revision',
  selected_branch_exists: 'The selected branch exists',
  base_revision_exists: 'The base revision exists',
  target_contained: 'The target repository is contained',
  target_clean: 'The target repository has no uncommitted changes',
  target_on_branch: 'The target repository is on a branch',
  target_head_confirmed: 'The target HEAD equals the confirmed revision',
  receipt_verified: 'The selected branch has a verified receipt',
  confirmation_token: 'The landing confirmation token was supplied',
} as const satisfies Record<LandingCheckName, string>;

const lookup = <T extends Record<string, string>>(table: T, code: string): string | null =>
  Object.hasOwn(table, code) ? (table[code as keyof T] ?? null) : null;

export const explainFailure = (code: string): string | null => lookup(FAILURES, code);
export const explainBlocked = (reason: string): string | null => lookup(BLOCKED, reason);
export const landingCheckLabel = (name: string): string => lookup(LANDING_CHECKS, name) ?? name;

const PROVIDER_LABELS: Record<string, string> = { ollama: 'Ollama', lmstudio: 'LM Studio' };
export const providerLabel = (provider: string): string => PROVIDER_LABELS[provider] ?? provider;

/** What the readiness report says is wrong for a branch's runtime and local provider, as sentences. */
export function readinessProblems(report: ReadinessReport, runtime: string, provider: string | null, include: { credentials: boolean }): string[] {
  const problems: string[] = [];
  const entry = report.runtimes.find((r) => r.runtime === runtime);
  if (entry && !entry.executable.found) problems.push(`${entry.executable.name} is not available: ${entry.executable.problem ?? 'not found on PATH'}`);
  const local = provider === null ? undefined : report.local_providers.find((p) => p.provider === provider);
  // A local provider (Ollama, LM Studio) needs no cloud credential, so its absence is not a problem there.
  if (include.credentials && entry && entry.credential.kind === 'missing' && local === undefined) {
    problems.push(`No provider credential for ${runtime}: ${entry.credential.label}.`);
  }
  if (local && !local.reachable) problems.push(`${providerLabel(local.provider)} at ${local.base_url} did not answer${local.problem ? `: ${local.problem}` : ''}.`);
  if (local?.version_supported === false) problems.push(`${providerLabel(local.provider)} ${local.version ?? ''} is older than Codex accepts.`);
  return problems;
}

/**
 * Plain words for the codes a view most often shows as a refusal; any other code is explained by
 * its own message, which Citadel writes as a sentence. The code is shown beside, never alone.
 * A function reads the error's details for the numbers and names it can add.
 */
type Explanation = string | ((error: CitadelErrorData) => string);
const ERRORS: Readonly<Partial<Record<ErrorCode, Explanation>>> = {
  IPC_REQUEST_INVALID: 'Some of what was sent is missing or not in the expected form; each problem is listed below.',
  INTERNAL_ERROR: 'Citadel hit an unexpected error. Nothing was changed by it; try again, and report it if it stays.',
  WEB_REQUEST_REFUSED: 'This page was refused: open Mission Control with the address (including its token) that `citadel mission-control` printed.',
  FORK_NOT_FOUND: 'There is no fork with this ID under this fork root.',
  FORK_LOCKED: 'Another Citadel process is changing this fork right now; try again in a moment.',
  FORK_STATE_CONFLICT: 'The fork is not in a state where this can be done.',
  FORK_RECORD_INVALID: "A stored record of this fork is damaged or missing, so Citadel will not act on it.",
  EXECUTOR_FILE_INVALID: 'The executor profiles are not valid; each problem is listed below.',
  EXECUTOR_PROFILE_INVALID: 'An executor profile is not valid; each problem is listed below.',
  PROFILE_SETS_INVALID: 'The saved profile sets cannot be used as they are stored. Nothing was changed or lost.',
  PROFILE_SET_NOT_FOUND: 'No saved profile set has that name (it may have been deleted elsewhere).',
  RUNTIME_UNKNOWN: 'Citadel has no adapter for that runtime.',
  SANDBOX_UNAVAILABLE: 'The containment backend is not ready on this machine; see Settings for what to install.',
  RUNTIME_AUTH_MISSING:
    "No provider credential Citadel's provider gateway can use was found for this runtime: set the runtime's API key. Runtime-only containment runs without the gateway, but only Claude Code and Codex offer it, and it is weaker.",
  SELECTION_AGAINST_EVIDENCE:
    'The evidence does not back this branch (the comparison did not recommend it, or its verifier did not pass), so selecting it needs your typed acknowledgement. Nothing was recorded.',
  SELECTION_REFUSED: 'This branch has no verified result that its verifier judged, so it cannot be selected.',
  ATTEMPTS_EXHAUSTED: (error) => {
    const limit = error.details?.['max_attempts'];
    const allowed = typeof limit === 'number' ? ` (${plural(limit, 'attempt', 'attempts')} per branch)` : '';
    return `This branch has used every attempt its fork allows${allowed}, so it cannot be retried. Mark it failed, or start a new fork with more attempts.`;
  },
  SETUP_FAILED: (error) => {
    const step = error.details?.['step_id'];
    const which = typeof step === 'string' ? `The setup step “${step}”` : 'A setup step';
    return `${which} failed (it exited with an error, timed out or could not start) before the agent ran. Fix the cause, then Retry the branch.`;
  },
  BUDGET_INVALID: 'A budget is out of range: the time budget, the token budget and the attempts per branch are each a whole number within their limits.',
  WORKTREE_INCLUDE_UNCONFIRMED:
    "The repository's .worktreeinclude copies ignored files of yours into every agent's worktree, and this list is not confirmed for it: review the files in the preview and tick the list to confirm them.",
  LANDING_PRECONDITION_FAILED: 'Landing was refused because a landing check failed. Nothing was changed.',
  LANDING_TOKEN_MISMATCH:
    'What was confirmed is no longer the landing plan: the fork, its selection or a head moved since the checks were shown. Nothing was changed; review the checks again.',
  LANDING_IN_DOUBT: 'A landing started and its outcome is not recorded, so nothing more is landed until it is reconciled.',
  PARENT_CONTRACT_UNVERIFIED:
    "The contract of the fork this one would continue no longer matches its digest (or its stored objective is not the one the contract binds), so nothing can continue from it. Nothing was created.",
  PARENT_RECEIPT_UNVERIFIED:
    'This branch has no receipt that verifies on this machine (it was not collected, is missing, or fails a check), and a follow-up starts only from verified work. Nothing was created.',
  PARENT_RESULT_MISSING: "This branch's result commit is no longer in the repository (it was deleted or cleaned up), so there is nothing to continue from. Nothing was created.",
  PARENT_TARGET_MISMATCH:
    'A follow-up lands in the repository of the fork it continues, and this is not that repository (or that fork\'s recorded repository is not the one its contract binds). Nothing was created.',
};

/**
 * A message written for a terminal names a flag or a `citadel` command; beside a plain
 * explanation it is kept for a report or a search, behind "Technical detail".
 */
const TERMINAL_WORDS = /(?:^|[\s(`'"])--[a-z]|\bcitadel (?:fork|executors|runtimes|keys|trust|verify|init|demo|mission-control)\b/;
/** These codes' messages are written for a developer (a schema's wording, a transport's failure, a list of check names). */
const TECHNICAL_MESSAGES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['IPC_REQUEST_INVALID', 'INTERNAL_ERROR', 'LANDING_PRECONDITION_FAILED']);

export function explainError(error: CitadelErrorData): string {
  const explanation = Object.hasOwn(ERRORS, error.code) ? ERRORS[error.code] : undefined;
  return (typeof explanation === 'function' ? explanation(error) : explanation) ?? error.message;
}

/**
 * Where the error's own message goes beside its explanation: nowhere when it is the explanation,
 * behind "Technical detail" when it is written for a developer or a terminal, otherwise beside it.
 */
export function errorMessagePlace(error: CitadelErrorData): 'none' | 'beside' | 'technical' {
  if (explainError(error) === error.message) return 'none';
  return TECHNICAL_MESSAGES.has(error.code) || TERMINAL_WORDS.test(error.message) ? 'technical' : 'beside';
}

/** One violation in plain words: a pattern given as a regular expression says nothing to an operator. */
export function plainViolation(violation: Violation): string {
  if (violation.rule === 'pattern_mismatch' && violation.message.includes(' does not match ')) return 'is not in the expected form';
  return violation.message;
}

/** A violation's JSON path as words: `$.executors[1].model` reads "executors › 2 › model"; the root is "the request". */
export function fieldLabel(path: string): string {
  const parts = [...path.matchAll(/\.([A-Za-z_]\w*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g)].map(([, name, index, quoted]) =>
    index !== undefined ? String(Number(index) + 1) : (name ?? quoted ?? '').replaceAll('_', ' '),
  );
  return parts.length === 0 ? 'the request' : parts.join(' › ');
}
