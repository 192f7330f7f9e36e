import { describe, expect, it } from 'vitest';
import { printablePath } from '../../../shared/fork/printable-path';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('a file name shown printable (issue 29)', () => {
  it('keeps well-formed UTF-8 as text and escapes every byte of a malformed sequence: overlong, surrogate, past U+10FFFF, cut short', () => {
    expect(printablePath(new TextEncoder().encode('café/日本/😀'))).toBe('café/日本/😀');
    expect(printablePath(bytes(0x61, 0xc0, 0xaf))).toBe('a\\xc0\\xaf');
    expect(printablePath(bytes(0xed, 0xa0, 0x80))).toBe('\\xed\\xa0\\x80');
    expect(printablePath(bytes(0xf4, 0x90, 0x80, 0x80))).toBe('\\xf4\\x90\\x80\\x80');
    expect(printablePath(bytes(0xe6, 0x97))).toBe('\\xe6\\x97');
  });

  it('escapes controls, format characters and the backslash, so an escape in a name never reads as one', () => {
    expect(printablePath(new TextEncoder().encode('a\tb\r\u0085\u200b\u2028\x7f'))).toBe('a\\tb\\r\\xc2\\x85\\xe2\\x80\\x8b\\xe2\\x80\\xa8\\x7f');
    expect(printablePath(new TextEncoder().encode('x\\xff'))).not.toBe(printablePath(bytes(0x78, 0xff)));
  });
});
