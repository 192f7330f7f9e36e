import type { ForkRecord, ForkStatus } from './fork-record';

/** What tells forks apart (issue 14): local, private labels, read beside the record and never published. */
export type ForkLabels = Pick<ForkStatus, 'title' | 'title_standing' | 'repo_name'>;

/** A fork's place in its chain (issue 32): its verified lineage, and the forks that continue it. */
export type ForkFamily = Pick<ForkStatus, 'lineage' | 'children'>;

/** The longest title shown; a longer first line is cut and ends with an ellipsis. */
export const TITLE_MAX_CHARS = 80;

// Control characters and bidirectional overrides: a label is shown in terminals and pages, where they could rewrite what is shown.
const UNPRINTABLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/** A local label (title, repository name) without the characters that would let it disguise itself on a terminal or a page. */
export function printableLabel(text: string): string {
  return text.replace(UNPRINTABLE, '');
}

/** The objective's first non-blank line, cut to TITLE_MAX_CHARS characters (code points, so no surrogate is split). */
export function objectiveTitle(objective: string): string | null {
  const line = objective
    .split(/\r?\n/)
    .map((l) => printableLabel(l).trim())
    .find((l) => l !== '');
  if (line === undefined) return null;
  const chars = [...line];
  return chars.length <= TITLE_MAX_CHARS ? line : `${chars.slice(0, TITLE_MAX_CHARS - 1).join('').trimEnd()}…`;
}

/** The D13 status projection of a fork record, with its local labels. */
export function forkStatusOf(record: ForkRecord, labels: ForkLabels, family: ForkFamily): ForkStatus {
  return {
    fork_id: record.fork_id,
    schema_version: record.schema_version,
    demo: record.demo,
    state: record.state,
    revision: record.revision,
    base_revision: record.base_revision,
    contract_digest: record.contract_digest,
    executor_set_digest: record.executor_set_digest,
    created_at: record.created_at,
    title: labels.title,
    title_standing: labels.title_standing,
    repo_name: labels.repo_name,
    lineage: family.lineage,
    children: family.children,
    branches: record.branches.map((b) => ({
      branch_id: b.branch_id,
      profile_id: b.profile_id,
      runtime: b.runtime,
      state: b.state,
      failure_code: b.failure_code,
      blocked_reason: b.blocked_reason,
      blocked_code: b.blocked_code ?? null,
      attempt: b.attempt,
    })),
  };
}
