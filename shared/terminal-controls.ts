/**
 * Characters a terminal acts on rather than shows, removed from output kept from a tool before it
 * is printed: C0 controls but the tab and newline, DEL, the 8-bit C1 controls (U+009B is a CSI,
 * U+009D an OSC that can open a hyperlink) and the bidirectional overrides and isolates, which
 * reorder what is shown around them.
 */
// eslint-disable-next-line no-control-regex
export const TERMINAL_CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
