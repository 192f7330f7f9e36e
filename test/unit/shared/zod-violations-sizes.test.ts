import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodViolations } from '../../../shared/zod-violations';

/** Size rules reach operators in words (issue 14 item 7), never in zod's "Too small: expected …" wording. */
const messages = (schema: z.ZodType, value: unknown): string[] => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : zodViolations(parsed.error.issues, [], value).map((v) => `${v.rule}: ${v.message}`);
};

describe('zodViolations size wording', () => {
  it('says what a string, a list and a number must be', () => {
    expect(messages(z.string().min(1), '')).toEqual(['too_small: must not be empty']);
    expect(messages(z.string().min(3), 'ab')).toEqual(['too_small: must have at least 3 characters']);
    expect(messages(z.string().max(1), 'ab')).toEqual(['too_big: must have at most 1 character']);
    expect(messages(z.array(z.string()).min(2), [])).toEqual(['too_few_items: must have at least 2 entries']);
    expect(messages(z.array(z.string()).max(1), ['a', 'b'])).toEqual(['too_many_items: must have at most 1 entry']);
    expect(messages(z.number().int().min(1), 0)).toEqual(['too_small: must be at least 1']);
    expect(messages(z.number().positive(), 0)).toEqual(['too_small: must be more than 0']);
  });

  it("keeps a schema's own message", () => {
    expect(messages(z.string().min(1, 'A set name is required.'), '')).toEqual(['too_small: A set name is required.']);
  });
});
