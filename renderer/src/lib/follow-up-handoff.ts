/**
 * The objective "Ask for changes" composed on the Fork page, handed to the New Fork it opens (issue
 * 32). Kept in the window's session storage under the parent branch, so a reload of New Fork keeps
 * it, and dropped once a follow-up of that branch starts or is opened without comments.
 */

const KEY = 'citadel.follow-up-objective';

interface Handoff {
  readonly from: string;
  readonly objective: string;
}

const refOf = (forkId: string, branchId: string): string => `${forkId}/${branchId}`;

function storage(): Storage | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    // A browser that refuses storage (a sandboxed frame): the objective is not kept across a reload.
    return null;
  }
}

export function keepFollowUpObjective(forkId: string, branchId: string, objective: string): void {
  const handoff: Handoff = { from: refOf(forkId, branchId), objective };
  storage()?.setItem(KEY, JSON.stringify(handoff));
}

/** The objective handed to a follow-up of this branch, or '' when none was. */
export function followUpObjective(forkId: string, branchId: string): string {
  const raw = storage()?.getItem(KEY) ?? null;
  if (raw === null) return '';
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return '';
    const { from, objective } = parsed as Partial<Handoff>;
    return from === refOf(forkId, branchId) && typeof objective === 'string' ? objective : '';
  } catch {
    return '';
  }
}

export function dropFollowUpObjective(): void {
  storage()?.removeItem(KEY);
}
