import type { ForkState } from '../../../shared/fork/fork-record';
import type { ForkSummary } from '../../../shared/fork/fork-summary';
import { stateTone } from './format';
import { escapeHtml } from './html';

/**
 * The Forks view's rows as markup: a thousand rows are built at once, and one parsed string per
 * list costs a fraction of a Svelte block per row (issue 14's first-render bench). Every value
 * placed here is escaped here; lib/keyed-rows.ts puts the rows in the table and keeps them current.
 */

/** A branch chip's words: its profile, its state, and why it failed or waits. */
function chipText(b: ForkSummary['branches'][number]): string {
  const why = b.failure_code ?? b.blocked_reason;
  return `${b.profile_id} ${b.state}${why === null ? '' : `: ${why}`}`;
}

/** What one readable fork's row shows, already worded (ForksView decides the words). */
export interface ForkRowView {
  readonly href: string;
  readonly title: string;
  readonly untitled: boolean;
  readonly demo: boolean;
  readonly changed: boolean;
  readonly id: string;
  readonly repo: string;
  readonly repoUnknown: boolean;
  readonly state: ForkState;
  readonly branches: ForkSummary['branches'];
  readonly receipts: string;
  readonly receiptsHint: string | null;
  readonly created: string;
  readonly createdTitle: string;
  readonly age: string;
}

const attr = (name: string, value: string | null): string => (value === null ? '' : ` ${name}="${escapeHtml(value)}"`);

/** The cells of a readable fork's row: its title link (the row's one focusable element) first. */
export function forkRowMarkup(row: ForkRowView): string {
  const badges = [
    row.demo ? '<span class="badge" title="created by citadel demo with simulated runtimes">[demo]</span>' : '',
    row.changed ? '<span class="badge tone-warn">changed</span>' : '',
  ].filter((badge) => badge !== '');
  const chips = row.branches.map((b) => `<li class="badge ${stateTone(b.state)}">${escapeHtml(chipText(b))}</li>`).join('');
  return (
    `<td class="fork"><a${attr('href', row.href)} class="title${row.untitled ? ' untitled' : ''}">${escapeHtml(row.title)}</a>` +
    `${badges.length === 0 ? '' : ` <span class="badges">${badges.join(' ')}</span>`}<br><code class="id">${escapeHtml(row.id)}</code></td>` +
    `<td${row.repoUnknown ? ' class="muted"' : ''}>${escapeHtml(row.repo)}</td>` +
    `<td><span class="badge ${stateTone(row.state)}">${escapeHtml(row.state)}</span></td>` +
    `<td><ul class="chips" aria-label="${row.branches.length} branches">${chips}</ul></td>` +
    `<td${row.receiptsHint === null ? '' : ` class="muted"${attr('title', row.receiptsHint)}`}>${escapeHtml(row.receipts)}</td>` +
    `<td><time${attr('datetime', row.created)}${attr('title', row.createdTitle)}>${escapeHtml(row.age)}</time></td>`
  );
}

/** The cells of a fork whose record could not be read: its id, "unknown" and the problem's code. */
export function problemRowMarkup(forkId: string, state: string, problem: string): string {
  return (
    `<td><code>${escapeHtml(forkId)}</code></td><td><span class="badge ${stateTone(state)}">${escapeHtml(state)}</span></td>` +
    `<td colspan="4" class="muted">unreadable: <code>${escapeHtml(problem)}</code></td>`
  );
}
