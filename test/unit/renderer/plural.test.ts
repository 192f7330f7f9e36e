import { describe, expect, it } from 'vitest';
import { plural } from '../../../renderer/src/lib/format';

/** Counts read right (issue 29, item 6): "1 file", never "1 files"; zero and many take the plural. */
describe('plural', () => {
  it('gives one the singular and every other count the plural', () => {
    expect(plural(1, 'file', 'files')).toBe('1 file');
    expect(plural(0, 'file', 'files')).toBe('0 files');
    expect(plural(2, 'branch', 'branches')).toBe('2 branches');
    expect(plural(21, 'step', 'steps')).toBe('21 steps');
  });
});
