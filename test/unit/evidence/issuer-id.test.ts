import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IssuerIdSchema } from '../../../shared/fork/ids';
import { defaultIssuerId, parseIssuerId } from '../../../main/evidence/keys/issuer-id';

describe('issuer ids', () => {
  it('accepts the grammar and refuses everything else with ISSUER_ID_INVALID', () => {
    for (const id of ['a', 'local-alice', 'ci.runner_2', '0', 'x'.repeat(64)]) expect(parseIssuerId(id)).toBe(id);
    for (const id of ['', 'Alice', '-lead', '.hidden', '_x', 'a/b', '../a', 'a b', 'x'.repeat(65), 'é', 'a\n']) {
      expect(() => parseIssuerId(id)).toThrow(expect.objectContaining({ code: 'ISSUER_ID_INVALID' }));
    }
  });

  it('defaults to local-<login name>, from USER, LOGNAME or USERNAME in that order', () => {
    expect(defaultIssuerId({ USER: 'alice', LOGNAME: 'bob' })).toBe('local-alice');
    expect(defaultIssuerId({ LOGNAME: 'bob', USERNAME: 'carol' })).toBe('local-bob');
    expect(defaultIssuerId({ USERNAME: 'Carol Smith' })).toBe('local-carol-smith');
    expect(defaultIssuerId({ USER: 'ACME\\Dave' })).toBe('local-acme-dave');
  });

  it('always yields a valid issuer id, whatever the login name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (login) => {
        expect(IssuerIdSchema.safeParse(defaultIssuerId({ USER: login })).success).toBe(true);
      }),
    );
  });
});
