import type { Contract } from '../../shared/fork/contract';
import type { ForkEvent, PastForkEvent } from '../../shared/fork/events';
import { BranchStateSchema, ForkStateSchema, type BranchRecord, type ForkRecord } from '../../shared/fork/fork-record';
import type { ExecutionReceipt } from '../../shared/fork/receipts';
import { verifyFork } from '../evidence/verify-fork';
import type { OrchestratorContext } from '../host/context';
import { readStatus } from '../runtimes/process-control/read-status';
import { adapterFor } from '../runtimes/registry';
import { readSetupFacts } from '../setup/setup-facts';
import { readSetupProgress } from '../setup/setup-progress';
import { attemptFiles, attemptKey } from '../store/fork-layout';
import { Journal, type JournalRecord } from '../store/journal';
import { readLiveTrail, trailActivityEvent, trailDiffEvent } from './live-trail';

/**
 * A fork's past events (issue 14), rebuilt from what is on disk rather than remembered: the
 * record's state histories, the journal's completed effects (worktree, setup, launch, collection),
 * a setup under way, the run status (start, exit) and the verified receipts' verifier steps, oldest first. The Fork
 * view shows them before the events it then receives live, so a finished fork, or one opened
 * after its events passed, never has an empty timeline. Each branch's current attempt only: the
 * history of its states covers earlier ones. What the drive streamed (the runtime's activities;
 * while it runs, its latest live diff) comes from the attempt's live trail, whichever process drove it.
 */
export async function forkTimeline(ctx: OrchestratorContext, forkId: string): Promise<PastForkEvent[]> {
  const verified = await verifyFork(ctx, forkId);
  const { record } = verified;
  const journal = await Journal.read(ctx.store.file(forkId, 'journal'));
  // A history keeps states as plain strings: one no schema knows is left out rather than shown wrong.
  const past: PastForkEvent[] = record.history.flatMap(({ state, at }) => {
    const known = ForkStateSchema.safeParse(state);
    return known.success ? [{ at, event: { type: 'fork_history' as const, fork_id: forkId, state: known.data } }] : [];
  });
  for (const branch of record.branches) {
    const receipt = verified.branches.find((b) => b.branch_id === branch.branch_id)?.receipt ?? null;
    past.push(...(await branchPast(ctx, record, branch, { journal: journal.records(), contract: verified.contract, receipt })));
  }
  // Stable: events of the same moment keep the order they were built in.
  return past.map((entry, index) => ({ entry, index })).sort((a, b) => a.entry.at.localeCompare(b.entry.at) || a.index - b.index).map(({ entry }) => entry);
}

interface Sources {
  readonly journal: readonly JournalRecord[];
  readonly contract: Contract | null;
  readonly receipt: ExecutionReceipt | null;
}

async function branchPast(ctx: OrchestratorContext, record: ForkRecord, branch: BranchRecord, sources: Sources): Promise<PastForkEvent[]> {
  const ids = { fork_id: record.fork_id, branch_id: branch.branch_id };
  const key = attemptKey(branch.branch_id, branch.attempt);
  const files = attemptFiles(ctx.root, record.fork_id, branch.branch_id, branch.attempt);
  const done = (effect: JournalRecord['effect']) => sources.journal.findLast((r) => r.effect === effect && r.key === key && r.phase === 'result' && r.outcome === 'done');
  const ended = (effect: JournalRecord['effect']) => sources.journal.findLast((r) => r.effect === effect && r.key === key && r.phase === 'result');
  const past: PastForkEvent[] = [];
  const add = (at: string, event: ForkEvent) => past.push({ at, event });

  const last = branch.history.length - 1;
  branch.history.forEach(({ state, at }, i) => {
    const known = BranchStateSchema.safeParse(state);
    if (known.success) add(at, { type: 'branch_state', ...ids, state: known.data, failure_code: i === last ? branch.failure_code : null });
  });
  const worktree = done('worktree.create');
  if (worktree) add(worktree.at, { type: 'runtime', ...ids, phase: 'worktree_ready' });
  const setup = sources.journal.findLast((r) => r.effect === 'setup.run' && r.key === key);
  if (setup?.phase === 'result') {
    const facts = await readSetupFacts(files.setupFacts).catch(() => null);
    for (const step of facts?.steps ?? []) add(setup.at, { type: 'setup_step', ...ids, step: step.id, status: step.status });
  } else if (setup !== undefined) {
    // Under way (or cut short by a crash, until resume reruns it): each step as far as this run got.
    const progress = await readSetupProgress(files.setupProgress).catch(() => null);
    for (const step of progress?.steps ?? []) if (step.at >= setup.at) add(step.at, { type: 'setup_step', ...ids, step: step.id, status: step.status });
  }

  const launch = done('runtime.launch');
  if (launch) {
    const status = await readStatus(files.status).catch(() => null);
    const run = { started_at: status?.started_at ?? launch.at, budget_seconds: sources.contract?.budget.max_duration_seconds ?? null, streams_output: streamsOutput(ctx, branch) };
    add(launch.at, { type: 'runtime', ...ids, phase: 'launched', run });
    if (status?.phase === 'exited') add(status.ended_at, { type: 'runtime', ...ids, phase: 'exited' });
  }
  const trail = await readLiveTrail(files.liveTrail).catch(() => null);
  for (const entry of trail?.activities ?? []) add(entry.at, trailActivityEvent(ids, entry));
  // A diff once the runtime is done is the receipt's to tell.
  if (trail?.diff && branch.state === 'running') add(trail.diff.at, trailDiffEvent(ids, trail.diff));
  const collected = ended('receipt.collect');
  const verifierAt = collected?.at ?? sources.receipt?.ended_at ?? null;
  if (verifierAt !== null) {
    for (const step of sources.receipt?.verifier.steps ?? []) add(verifierAt, { type: 'verifier_step', ...ids, step: step.id, status: step.status });
  }
  return past;
}

function streamsOutput(ctx: OrchestratorContext, branch: BranchRecord): boolean {
  try {
    return adapterFor(branch.runtime, ctx.adapters).liveActivity !== undefined;
  } catch {
    return false;
  }
}
