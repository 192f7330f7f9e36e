/**
 * Characters a terminal acts on rather than shows, removed from output kept from a tool before it
 * is printed: C0 controls but the tab and newline, DEL, the 8-bit C1 controls (U+009B is a CSI,
 * U+009D an OSC that can open a hyperlink) and the bidirectional overrides and isolates, which
 * reorder what is shown around them.
 */
// eslint-disable-next-line no-control-regex
export const TERMINAL_CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** Text from a repository or a tool as it may be printed to a terminal: its controls removed, its lines kept. */
export const printable = (text: string): string => text.replace(TERMINAL_CONTROLS, '');

/** As `printable`, on one line: a line break in a field cannot forge a line of the output around it. */
export const printableLine = (text: string): string => printable(text).replace(/\s*\n\s*/g, ' ');

/**
 * JSON text as it may be printed to a terminal: the controls JSON leaves raw (DEL, the C1 controls,
 * the bidirectional marks) written as `\uXXXX` escapes, which only strings can hold, so a parser
 * reads exactly the same value.
 */
export const printableJson = (json: string): string =>
  json.replace(/[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
