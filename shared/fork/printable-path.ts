/**
 * Characters a path is never shown with (issue 29): controls (newlines, terminal escapes), format
 * characters (bidirectional overrides, zero-width marks) and line or paragraph separators, any of
 * which could make one name look like another, or rewrite the text around it.
 */
export const UNPRINTABLE_IN_PATH = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const NAMED_ESCAPES: Readonly<Record<number, string>> = { 0x07: '\\a', 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0b: '\\v', 0x0c: '\\f', 0x0d: '\\r', 0x5c: '\\\\' };

const hexByte = (byte: number): string => `\\x${byte.toString(16).padStart(2, '0')}`;

/**
 * A file name as git's bytes hold it, shown as text, as git's quoted form escapes it: a byte that
 * is not part of valid UTF-8 as `\xff`, an unprintable character as `\n`, `\t`… or its UTF-8 bytes
 * (`\xe2\x80\xae`), a backslash as `\\`; every other character as itself. Every `\` starts an
 * escape, so two different names never show the same (decoding the text gives the bytes back).
 */
export function printablePath(bytes: Uint8Array): string {
  let text = '';
  for (let at = 0; at < bytes.length; ) {
    const length = utf8SequenceLength(bytes, at);
    if (length === 0) {
      text += hexByte(bytes[at] ?? 0);
      at += 1;
      continue;
    }
    const char = String.fromCodePoint(codePoint(bytes, at, length));
    const named = NAMED_ESCAPES[char.codePointAt(0) ?? 0];
    if (named !== undefined) text += named;
    else if (UNPRINTABLE_IN_PATH.test(char)) text += Array.from(bytes.subarray(at, at + length), hexByte).join('');
    else text += char;
    at += length;
  }
  return text;
}

/** Bytes of the well-formed UTF-8 sequence at `at` (the Unicode standard's table 3-7: no overlong form, no surrogate, nothing past U+10FFFF), or 0. */
function utf8SequenceLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at] ?? 0;
  if (lead < 0x80) return 1;
  // The length, and the range the second byte must fall in; every later byte is 0x80..0xbf.
  const [length, low, high] =
    lead >= 0xc2 && lead <= 0xdf ? [2, 0x80, 0xbf]
    : lead === 0xe0 ? [3, 0xa0, 0xbf]
    : lead === 0xed ? [3, 0x80, 0x9f]
    : lead >= 0xe1 && lead <= 0xef ? [3, 0x80, 0xbf]
    : lead === 0xf0 ? [4, 0x90, 0xbf]
    : lead === 0xf4 ? [4, 0x80, 0x8f]
    : lead >= 0xf1 && lead <= 0xf3 ? [4, 0x80, 0xbf]
    : [0, 0, 0];
  if (length === 0 || at + length > bytes.length) return 0;
  const second = bytes[at + 1] ?? 0;
  if (second < low || second > high) return 0;
  for (let i = 2; i < length; i++) {
    const next = bytes[at + i] ?? 0;
    if (next < 0x80 || next > 0xbf) return 0;
  }
  return length;
}

function codePoint(bytes: Uint8Array, at: number, length: number): number {
  const lead = bytes[at] ?? 0;
  let point = length === 1 ? lead : lead & (0xff >> (length + 1));
  for (let i = 1; i < length; i++) point = (point << 6) | ((bytes[at + i] ?? 0) & 0x3f);
  return point;
}
