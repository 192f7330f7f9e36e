import type { ForkStatus } from '../../../shared/fork/fork-record';
import type { ParentRef } from '../../../shared/fork/lineage';
import type { ForkListEntry, Reply } from '../../../shared/ipc/contract';
import type { Client } from './client';

/** A fork up a chain of follow-ups (issue 32), and the branch of it the next fork down continues. */
export interface Ancestor {
  readonly fork_id: string;
  readonly branch_id: string;
  /** Its title; null when untitled, undefined when its status could not be read. */
  readonly title: string | null | undefined;
}

/** A chain longer than this is cut (and said to be) rather than read without end. */
export const MAX_ANCESTORS = 20;

/**
 * The forks a fork continues (`parent` is the branch it continues), first fork first: each parent's own status names the next one up
 * (its verified lineage). `cut` when the first fork was not reached: the walk stopped at a fork it
 * could not read, at a fork seen before, or after MAX_ANCESTORS steps.
 */
export async function ancestorsOf(client: Client, forkId: string, parent: ParentRef): Promise<{ ancestors: Ancestor[]; cut: boolean }> {
  const ancestors: Ancestor[] = [];
  const seen = new Set([forkId]);
  let next: ParentRef | null = parent;
  while (next !== null) {
    if (seen.has(next.fork_id) || ancestors.length >= MAX_ANCESTORS) return { ancestors, cut: true };
    seen.add(next.fork_id);
    const answer: Reply<'forkStatus'> = await client.call('forkStatus', { fork_id: next.fork_id });
    ancestors.unshift({ ...next, title: answer.ok ? answer.value.title : undefined });
    if (!answer.ok) return { ancestors, cut: true };
    const up: ForkStatus['lineage'] = answer.value.lineage;
    next = up === null ? null : { fork_id: up.parent_fork_id, branch_id: up.parent_branch_id };
  }
  return { ancestors, cut: false };
}

/** The listed forks that continue each listed fork (its follow-ups), by parent fork id, oldest first (fork ids sort by creation). */
export function followUpsByParent(forks: readonly ForkListEntry[]): ReadonlyMap<string, readonly string[]> {
  const byParent = new Map<string, string[]>();
  for (const fork of forks) {
    if ('problem' in fork || fork.parent === null) continue;
    byParent.set(fork.parent.fork_id, [...(byParent.get(fork.parent.fork_id) ?? []), fork.fork_id]);
  }
  for (const ids of byParent.values()) ids.sort();
  return byParent;
}
