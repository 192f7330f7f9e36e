/**
 * Missing telemetry stays visibly unknown (executor-profiles.md, Model proof and Mission Control):
 * every formatter turns null into the word "unknown", never 0 and never a guessed value.
 */
export const UNKNOWN = 'unknown';
/** A fact of a branch that still runs: not unknown, only not collected yet (issue 29: never red). */
export const NOT_YET = 'not collected yet';

export function orUnknown(value: string | number | null): string {
  return value === null ? UNKNOWN : String(value);
}

/** A count with its noun: `plural(1, 'file', 'files')` is "1 file", `plural(0, 'file', 'files')` is "0 files". */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return UNKNOWN;
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 120) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

export function formatCost(usd: number | null): string {
  return usd === null ? UNKNOWN : `$${usd.toFixed(4)}`;
}

// One formatter for every row: Date#toLocaleString builds a new one per call, which dominates a long
// list. Made at the first time formatted, not at load: building it costs the first page ~13 ms
// (ICU's pattern data), which would otherwise delay the first paint while the fork list is read.
let timeFormat: Intl.DateTimeFormat | null = null;

export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  timeFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return timeFormat.format(date);
}

/** How a fork, branch or check state is coloured; colour is never the only signal (the word is always shown). */
export function stateTone(state: string): string {
  if (state === 'passed' || state === 'ready' || state === 'landed' || state === 'selected') return 'tone-good';
  if (state === 'failed' || state === 'blocked' || state === 'unknown') return 'tone-bad';
  return state === 'running' || state === 'pending' ? 'tone-warn' : '';
}

/** A long digest or commit, shortened for tables; the full value stays in the title and copy text. */
export function shortHash(value: string, digits = 12): string {
  const [prefix, hex] = value.includes(':') ? value.split(':', 2) : ['', value];
  return `${prefix ? `${prefix}:` : ''}${(hex ?? '').slice(0, digits)}`;
}
