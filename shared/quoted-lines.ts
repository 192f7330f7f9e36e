/**
 * Every line break a reader (a terminal, a textarea, a model) may honour: CRLF, LF, CR, VT, FF,
 * NEL, LS and PS. Text quoted line by line is split on all of them, so none of it escapes its quote.
 */
export const ANY_LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

// Other controls (a tab stays), bidirectional controls and zero-width characters: shown, they could make a quoted line read as something else.
const HIDDEN_CONTROLS = /[\p{Cc}\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu;

/** `text` as quoted lines (`> …`), each broken where any reader would break it, without hidden controls, and cut at `maxChars`. */
export function quoteLines(text: string, prefix = '> ', maxChars = Number.POSITIVE_INFINITY): string[] {
  return text.split(ANY_LINE_BREAK).map((line) => {
    const shown = line.replace(HIDDEN_CONTROLS, (c) => (c === '\t' ? c : ''));
    const chars = [...shown];
    return `${prefix}${chars.length > maxChars ? `${chars.slice(0, maxChars).join('')}…` : shown}`;
  });
}
