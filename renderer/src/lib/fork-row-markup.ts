import type { ForkStatus } from '../../../shared/fork/fork-record';
import { stateTone } from './format';

/**
 * The Forks view's row parts that hold nothing focusable (a title's badges, the branch chips), as
 * markup: a thousand rows are built at once, and one parsed string per row costs a fraction of a
 * Svelte block per chip and badge (issue 14's first-render bench). Every value is escaped here;
 * the link and the other cells stay Svelte markup, updated in place, so focus is never lost.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** The badges after a fork's title: [demo] for `citadel demo` forks, "changed" since the page opened. */
export function badgeMarkup(demo: boolean, changed: boolean): string {
  const badges = [
    demo ? '<span class="badge" title="created by citadel demo with simulated runtimes">[demo]</span>' : '',
    changed ? '<span class="badge tone-warn">changed</span>' : '',
  ];
  return badges.filter((badge) => badge !== '').join(' ');
}

/** A branch chip's words: its profile, its state, and why it failed or waits. */
export function chipText(b: ForkStatus['branches'][number]): string {
  const why = b.failure_code ?? b.blocked_reason;
  return `${b.profile_id} ${b.state}${why === null ? '' : `: ${why}`}`;
}

/** A readable fork's branch chips, one list item each. */
export function chipsMarkup(branches: ForkStatus['branches']): string {
  return branches.map((b) => `<li class="badge ${stateTone(b.state)}">${escapeHtml(chipText(b))}</li>`).join('');
}
