import { CitadelError, type ErrorCode } from '../../shared/errors';
import { executionState } from '../../shared/fork/fork-state';
import type { BlockedReason, BranchRecord, BranchState, ForkRecord, ForkState } from '../../shared/fork/fork-record';
import type { ForkEventSink } from '../../shared/fork/events';
import type { FailureCode } from '../../shared/runtime/telemetry';
import type { ForkStore } from './fork-store';

/** What recording a transition needs from its host (an OrchestratorContext is one). */
export interface TransitionHost {
  readonly store: ForkStore;
  readonly now: () => Date;
  readonly events: ForkEventSink;
}

export interface BranchChange {
  readonly state: BranchState;
  readonly failure_code?: FailureCode | null;
  readonly blocked_reason?: BlockedReason | null;
  /** Only with `blocked`: the typed error behind it. */
  readonly blocked_code?: ErrorCode;
  readonly attempt?: number;
}

/**
 * Applies branch changes, derives the parent state, bumps the revision and writes the snapshot
 * durably, then tells every shell. Returns the new record.
 */
export async function commitTransition(
  ctx: TransitionHost,
  record: ForkRecord,
  changes: Readonly<Record<string, BranchChange>>,
  forkState?: ForkState,
): Promise<ForkRecord> {
  const at = ctx.now().toISOString();
  const branches = record.branches.map((branch): BranchRecord => {
    const change = changes[branch.branch_id];
    if (!change) return branch;
    // Kept only while the branch stays blocked; absent otherwise, so older records stay byte-identical.
    const { blocked_code: previousCode, ...rest } = branch;
    const blockedCode = change.state === 'blocked' ? (change.blocked_code ?? previousCode) : undefined;
    return {
      ...rest,
      ...(blockedCode === undefined ? {} : { blocked_code: blockedCode }),
      state: change.state,
      failure_code: change.failure_code === undefined ? branch.failure_code : change.failure_code,
      blocked_reason: change.blocked_reason === undefined ? (change.state === 'blocked' ? branch.blocked_reason : null) : change.blocked_reason,
      attempt: change.attempt ?? branch.attempt,
      history: branch.state === change.state ? branch.history : [...branch.history, { state: change.state, at }],
    };
  });
  for (const id of Object.keys(changes)) {
    if (!record.branches.some((b) => b.branch_id === id)) throw new CitadelError('BRANCH_NOT_FOUND', `no branch ${id} in ${record.fork_id}`);
  }
  const state = forkState ?? (isOperatorState(record.state) ? record.state : executionState(branches));
  const next: ForkRecord = {
    ...record,
    revision: record.revision + 1,
    state,
    branches,
    history: record.state === state ? record.history : [...record.history, { state, at }],
  };
  await ctx.store.writeRecord(next);
  for (const branch of branches) {
    const before = record.branches.find((b) => b.branch_id === branch.branch_id);
    if (before?.state !== branch.state || before.failure_code !== branch.failure_code) {
      ctx.events({ type: 'branch_state', fork_id: record.fork_id, branch_id: branch.branch_id, state: branch.state, failure_code: branch.failure_code });
    }
  }
  if (record.state !== state) ctx.events({ type: 'fork_state', fork_id: record.fork_id, state, revision: next.revision });
  return next;
}

/** States set by an operator action (select, land) are never overwritten by execution facts. */
function isOperatorState(state: ForkState): boolean {
  return state === 'selected' || state === 'landed';
}
