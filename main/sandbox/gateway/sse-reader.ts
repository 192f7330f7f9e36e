/** One event's data beyond this many characters is skipped: a provider's start and completion events are a few KiB. */
export const MAX_SSE_EVENT_CHARS = 1024 * 1024;

export interface SseReader {
  /** Feeds the next piece of the stream (already decoded text; pieces may split lines anywhere). */
  push(text: string): void;
  /** Whether an event (or a line) was skipped as too long so far: what it said is unknown. */
  skipped(): boolean;
}

/**
 * Reads Server-Sent Events incrementally (WHATWG HTML §9.2.6 line and field rules) and hands each
 * complete event's data to `onData`. Memory stays bounded whatever the stream: at most one line
 * and one event's data up to `maxEventChars` each; an event longer than that is skipped whole, never
 * cut (a cut JSON event could read as a different one), and `skipped()` says so. An event left
 * unfinished at the end is dropped.
 */
export function createSseReader(onData: (data: string) => void, maxEventChars: number = MAX_SSE_EVENT_CHARS): SseReader {
  let line = '';
  let lineTooLong = false;
  let data: string[] = [];
  let dataChars = 0;
  let hasData = false;
  let eventTooLong = false;
  // A CR ends a line; an LF right after it (perhaps in the next piece) is the same line break.
  let skipLf = false;
  let skippedAny = false;

  const dispatch = (): void => {
    // A line too long is counted whatever its field: it may have been the event's data.
    if (eventTooLong) skippedAny = true;
    else if (hasData) onData(data.join('\n'));
    data = [];
    dataChars = 0;
    hasData = false;
    eventTooLong = false;
  };
  const endLine = (): void => {
    if (lineTooLong) {
      eventTooLong = true;
      lineTooLong = false;
    } else if (line === '') {
      dispatch();
    } else {
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      if (field === 'data') {
        const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1);
        dataChars += value.length + 1;
        if (dataChars > maxEventChars) {
          eventTooLong = true;
          data = [];
        } else if (!eventTooLong) {
          data.push(value);
        }
        hasData = true;
      }
    }
    line = '';
  };
  const append = (text: string, from: number, to: number): void => {
    if (lineTooLong || from === to) return;
    if (line.length + (to - from) > maxEventChars) {
      lineTooLong = true;
      line = '';
    } else {
      line += text.slice(from, to);
    }
  };

  return {
    push(text) {
      let start = 0;
      for (let i = 0; i < text.length; i += 1) {
        const code = text.charCodeAt(i);
        if (code !== 10 && code !== 13) continue;
        if (code === 10 && skipLf && i === start) {
          skipLf = false;
          start = i + 1;
          continue;
        }
        append(text, start, i);
        endLine();
        skipLf = code === 13;
        start = i + 1;
      }
      if (start < text.length) {
        skipLf = false;
        append(text, start, text.length);
      }
    },
    skipped: () => skippedAny,
  };
}
