import { describe, expect, it } from 'vitest';
import { objectiveTitle, printableLabel, TITLE_MAX_CHARS } from '../../../shared/fork/fork-status';

describe('fork labels', () => {
  it('titles a fork by its objective’s first non-blank line, cut by code points', () => {
    expect(objectiveTitle('\n  Fix the sum  \nmore detail')).toBe('Fix the sum');
    expect(objectiveTitle(' \n\t\n')).toBeNull();
    const long = objectiveTitle('😀'.repeat(200)) ?? '';
    expect([...long]).toHaveLength(TITLE_MAX_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('drops terminal escapes and bidirectional overrides, which could disguise a title or a repository name', () => {
    expect(objectiveTitle('\u001b[2J\u001b]0;pwned\u0007Fix it\u202e')).toBe('[2J]0;pwnedFix it');
    expect(printableLabel('repo\u0000\u001b[31m\u2066name')).toBe('repo[31mname');
    expect(printableLabel('plain — name')).toBe('plain — name');
  });
});
