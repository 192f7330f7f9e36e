import type { ForkState } from '../../../shared/fork/fork-record';
import type { ForkSummary } from '../../../shared/fork/fork-summary';
import { stateTone } from './format';
import { escapeHtml } from './html';
import { chipText } from './triage-words';

/**
 * The Forks view's rows as markup: a thousand rows are built at once, and one parsed string per
 * list costs a fraction of a Svelte block per row (issue 14's first-render bench). Every value
 * placed here is escaped here; lib/keyed-rows.ts puts the rows in the table and keeps them current.
 */

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
  /** The state badge's tone, when the state's own would mislead (a ready fork in which nothing passed). */
  readonly stateTone: string;
  readonly needsDecision: boolean;
  /** The settled outcome, or a running fork's elapsed time; null when there is neither. */
  readonly outcome: { readonly text: string; readonly tone: string } | null;
  /** Verified receipts, once the fork's proof has been read for its current revision. */
  readonly receipts: string | null;
  readonly branches: ForkSummary['branches'];
  /**
   * The pick column, shown only while forks are being picked for Clean selected (so the usual list
   * builds no thousand checkboxes): its box, or null for a fork that cannot be picked (a branch runs or waits to run).
   */
  readonly picking: boolean;
  readonly pick: { readonly checked: boolean } | null;
  readonly created: string;
  readonly createdTitle: string;
  readonly age: string;
  /** Issue 32: the branch this fork continues, with its fork's page; null for a first fork. */
  readonly parent: { readonly href: string; readonly forkId: string; readonly branchId: string } | null;
  /** Issue 32: the listed forks that continue this one, oldest first, each with its page. */
  readonly children: readonly { readonly href: string; readonly forkId: string }[];
}

/** The most follow-ups a row links; past it the row says how many more there are (the fork's page lists them all). */
export const MAX_CHILD_LINKS = 3;

const attr = (name: string, value: string | null): string => (value === null ? '' : ` ${name}="${escapeHtml(value)}"`);

/** The cells of a readable fork's row: its pick box while picking (settled forks only), then its title link. */
export function forkRowMarkup(row: ForkRowView): string {
  const badges = [
    row.demo ? '<span class="badge" title="created by citadel demo with simulated runtimes">[demo]</span>' : '',
    row.changed ? '<span class="badge tone-warn">changed</span>' : '',
  ].filter((badge) => badge !== '');
  const chips = row.branches.map((b) => `<li class="badge ${stateTone(b.state)}">${escapeHtml(chipText(b))}</li>`).join('');
  const pick = row.pick === null ? '' : `<input type="checkbox" data-pick${attr('aria-label', `Pick ${row.title} (${row.id}) for cleaning`)}${row.pick.checked ? ' checked' : ''}>`;
  const outcome = row.outcome === null ? '' : `<span class="badge ${escapeHtml(row.outcome.tone)}">${escapeHtml(row.outcome.text)}</span>`;
  return (
    (row.picking ? `<td class="pick">${pick}</td>` : '') +
    `<td class="fork"><a${attr('href', row.href)} class="title${row.untitled ? ' untitled' : ''}">${escapeHtml(row.title)}</a>` +
    `${badges.length === 0 ? '' : ` <span class="badges">${badges.join(' ')}</span>`}<br><code class="id">${escapeHtml(row.id)}</code>${lineageMarkup(row)}</td>` +
    `<td${row.repoUnknown ? ' class="muted"' : ''}>${escapeHtml(row.repo)}</td>` +
    `<td><span class="badge ${escapeHtml(row.stateTone)}">${escapeHtml(row.state)}</span>${row.needsDecision ? '<span class="badge tone-warn decide">needs your decision</span>' : ''}</td>` +
    `<td class="outcome">${outcome}${row.receipts === null ? '' : `<br><span class="muted">${escapeHtml(row.receipts)}</span>`}</td>` +
    `<td><ul class="chips" aria-label="${row.branches.length} ${row.branches.length === 1 ? 'branch' : 'branches'}">${chips}</ul></td>` +
    `<td><time${attr('datetime', row.created)}${attr('title', row.createdTitle)}>${escapeHtml(row.age)}</time></td>`
  );
}

/** The cells of a fork whose record could not be read: its id, "unknown" and the problem's code (it cannot be picked). */
export function problemRowMarkup(forkId: string, state: string, problem: string, picking: boolean): string {
  return (
    `${picking ? '<td class="pick"></td>' : ''}<td><code>${escapeHtml(forkId)}</code></td><td class="muted">unknown</td>` +
    `<td><span class="badge ${stateTone(state)}">${escapeHtml(state)}</span></td>` +
    `<td colspan="3" class="muted">unreadable: <code>${escapeHtml(problem)}</code></td>`
  );
}

/** A row's place in its chain (issue 32): the branch it continues and the forks that continue it, as links. */
function lineageMarkup(row: ForkRowView): string {
  const parent =
    row.parent === null
      ? ''
      : `<br><span class="lineage">continues <a${attr('href', row.parent.href)}><code>${escapeHtml(row.parent.forkId)}</code></a> / <code>${escapeHtml(row.parent.branchId)}</code></span>`;
  if (row.children.length === 0) return parent;
  const links = row.children.slice(0, MAX_CHILD_LINKS).map((child) => `<a${attr('href', child.href)}><code>${escapeHtml(child.forkId)}</code></a>`);
  const more = row.children.length - MAX_CHILD_LINKS;
  const count = row.children.length === 1 ? '1 follow-up' : `${row.children.length} follow-ups`;
  return `${parent}<br><span class="lineage">${count}: ${links.join(', ')}${more > 0 ? ` and ${more} more` : ''}</span>`;
}
