/**
 * Reading a runtime's JSON lines defensively: every adapter's parser and live view read untrusted
 * output that may be cut, garbled or hostile, so nothing here throws and nothing is assumed.
 */

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One line as an event object with a string `type`, or null for anything else. */
export function parseTypedEvent(line: string): (Record<string, unknown> & { type: string }) | null {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) && typeof value.type === 'string' ? (value as Record<string, unknown> & { type: string }) : null;
  } catch {
    return null;
  }
}

/** A running token total: null once any count is missing or not a non-negative safe integer (unknown stays unknown). */
export function addCount(total: number | null, value: unknown): number | null {
  if (total === null || typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return null;
  return total + value;
}
