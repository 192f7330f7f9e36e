import { describeForkContainment, type ForkContainment } from '../../../shared/fork/containment-display';
import type { ForkEvent } from '../../../shared/fork/events';
import type { ForkStatus } from '../../../shared/fork/fork-record';
import type { LandingCheck } from '../../../shared/fork/landing';
import type { SetupFailure } from '../../../shared/fork/workflow';
import { describeRefusal, type EgressRefusal } from '../../../shared/fork/egress-refusals';
import type { ForkListing } from '../../../shared/fork/fork-summary';
import { TERMINAL_CONTROLS } from '../../../shared/terminal-controls';
import { marked } from './render-comparison';

/** One fork; `fork status FORK_ID` adds the containment its contract binds, why a branch's setup failed and what its egress refused. */
export function renderForkStatus(
  status: ForkStatus,
  containment?: ForkContainment,
  setupFailures: Readonly<Record<string, SetupFailure>> = {},
  refusals: Readonly<Record<string, readonly EgressRefusal[]>> = {},
): string {
  const lines = [
    `${status.fork_id}${status.demo ? ' [demo]' : ''}  ${status.state}  (schema ${status.schema_version}, revision ${status.revision}; revision and states recorded, not signed)`,
    `  title     ${status.title ?? (status.title_standing === 'unverified' ? '(unverified: the objective does not match its contract)' : '(untitled)')}`,
    `  repo      ${status.repo_name ?? '(unknown: the fork request cannot be read)'}`,
    `  base      ${status.base_revision}${status.lineage === null ? '' : ` (the result of ${status.lineage.parent_fork_id}/${status.lineage.parent_branch_id})`}`,
    ...(status.lineage === null ? [] : [`  continues ${status.lineage.parent_fork_id}/${status.lineage.parent_branch_id}`]),
    ...status.children.map((c) => `  continued ${c.fork_id} (from ${c.parent_branch_id})`),
    `  contract  ${status.contract_digest}`,
    ...(status.executor_set_digest ? [`  executors ${status.executor_set_digest}`] : []),
    ...(containment === undefined ? [] : [`  containment ${containmentLine(containment)}`]),
    ...status.branches.flatMap((b) => [
      `  ${b.branch_id.padEnd(28)} ${b.runtime.padEnd(7)} ${b.state.padEnd(8)}${b.failure_code ? ` ${b.failure_code}` : ''}${b.blocked_reason ? ` (${b.blocked_reason}${b.blocked_code ? `: ${b.blocked_code}` : ''})` : ''}${b.attempt > 1 ? ` attempt ${b.attempt}` : ''}`,
      ...setupFailureLines(setupFailures[b.branch_id]),
      ...(refusals[b.branch_id] ?? []).map((r) => `    refused: ${describeRefusal(r)}`),
    ]),
  ];
  return `${lines.join('\n')}\n`;
}

/** A failed setup step and the end of its output, indented under its branch; `fork resolve --retry` runs setup again. */
function setupFailureLines(failure: SetupFailure | undefined): string[] {
  if (failure === undefined) return [];
  const how = failure.timed_out ? 'timed out' : failure.spawn_error !== null ? `could not start (${failure.spawn_error})` : `exited ${failure.exit_code ?? 'by a signal'}`;
  // A tool's colours and cursor moves are not replayed on the operator's terminal.
  const printable = failure.tail.replace(TERMINAL_CONTROLS, '');
  const tail = printable.trimEnd().split('\n').slice(-20);
  return [`    setup step ${failure.step_id} ${how}; output ends:`, ...tail.map((line) => `      | ${line}`)];
}

function containmentLine(containment: ForkContainment): string {
  if (containment === 'unverified') return 'unknown (the stored contract does not match its digest)';
  return marked(describeForkContainment(containment === 'predates' ? null : containment));
}

export function renderForkList(forks: readonly ForkListing[]): string {
  if (forks.length === 0) return 'no forks yet\n';
  return `${forks
    .map((f) =>
      'problem' in f
        ? `${f.fork_id}  unknown  (${f.problem})`
        : `${f.fork_id}${f.demo ? ' [demo]' : ''}  ${f.state}  ${f.branches.length} branches  ${f.repo_name ?? '?'}  ${f.title ?? (f.title_standing === 'unverified' ? '(objective unverified)' : '(untitled)')}${f.lineage === null ? '' : `  (continues ${f.lineage.parent_fork_id}/${f.lineage.parent_branch_id})`}`,
    )
    .join('\n')}\n`;
}

/** One progress line per orchestrator event, for a person watching a terminal. */
export function describeEvent(event: ForkEvent): string {
  switch (event.type) {
    case 'fork_state':
      return `fork ${event.state}\n`;
    case 'branch_state':
      return `${event.branch_id}: ${event.state}${event.failure_code ? ` (${event.failure_code})` : ''}\n`;
    case 'runtime':
      return `${event.branch_id}: ${event.phase.replaceAll('_', ' ')}\n`;
    case 'verifier_step':
      return `${event.branch_id}: verifier ${event.step} ${event.status}\n`;
    case 'setup_step':
      return `${event.branch_id}: setup ${event.step} ${event.status}\n`;
    // Issue 14's live view (a diff every few seconds, each runtime event) is Mission Control's; the terminal keeps its one line per step.
    case 'live_diff':
    case 'runtime_activity':
      return '';
    case 'drive_failed':
      return `fork ${event.fork_id}: the drive stopped (${event.code}: ${event.message}); citadel fork resume continues it\n`;
  }
}

export function renderLandingChecks(forkId: string, checks: readonly LandingCheck[], token: string | null): string {
  const lines = checks.map((c) => `  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.reason ? `: ${c.reason}` : ''}`);
  lines.push(
    '',
    token === null
      ? 'Landing is refused until every check passes. Nothing was changed.'
      : `All checks pass. To merge locally (git merge --no-ff; nothing is pushed): citadel fork land ${forkId} --confirm ${token}`,
  );
  return `${lines.join('\n')}\n`;
}
