import { formatTime } from './format';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long ago `iso` was, in plain words ("just now", "3 min ago", "5 h ago", "2 days ago"); past a
 * month, or for a time in the future (another machine's clock), the absolute time instead
 * (`absolute`, when the caller has already formatted it).
 */
export function relativeAge(iso: string, nowMs: number, absolute?: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const age = nowMs - at;
  if (age < -MINUTE || age >= 30 * DAY) return absolute ?? formatTime(iso);
  if (age < MINUTE) return 'just now';
  if (age < HOUR) return `${Math.floor(age / MINUTE)} min ago`;
  if (age < DAY) return `${Math.floor(age / HOUR)} h ago`;
  const days = Math.floor(age / DAY);
  return `${days} ${days === 1 ? 'day' : 'days'} ago`;
}
