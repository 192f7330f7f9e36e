import type { CitadelErrorData, ErrorCode, Violation } from '../../../shared/errors';
import type { BlockedReason } from '../../../shared/fork/fork-record';
import type { LandingCheckName } from '../../../shared/fork/landing';
import type { ReadinessReport } from '../../../shared/runtime/readiness';
import type { FailureCode } from '../../../shared/runtime/telemetry';

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
  launch_in_doubt: 'Citadel cannot tell whether the runtime was launched. An operator must decide (Mark failed or Retry; citadel fork resolve) before anything is retried.',
  process_lost: 'The runtime process was lost before its result was collected. An operator must decide (Mark failed or Retry; citadel fork resolve).',
  collect_failed: "The branch's result could not be collected. An operator must decide (Mark failed or Retry; citadel fork resolve).",
  start_refused: 'The branch could not be started, and nothing ran. Fix what its code names, then Retry (it uses no attempt), or Mark failed (citadel fork resolve).',
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
 */
const ERRORS: Readonly<Partial<Record<ErrorCode, string>>> = {
  IPC_REQUEST_INVALID: 'Some of what was sent is missing or not in the expected form; each problem is listed below.',
  INTERNAL_ERROR: 'Citadel hit an unexpected error. Nothing was changed by it; try again, and report it if it stays.',
  WEB_REQUEST_REFUSED: 'This page was refused: open Mission Control with the address (including its token) that `citadel ui` printed.',
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
};

export function explainError(error: CitadelErrorData): string {
  return lookup(ERRORS, error.code) ?? error.message;
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
