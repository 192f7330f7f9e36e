import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portableSha256Hex, sha256Digest } from '../../../shared/digest';

describe('sha256Digest', () => {
  it('gives the same digest on the Node path and the portable (renderer) path, for strings and bytes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 4096 })), (data) => {
        const expected = createHash('sha256').update(data).digest('hex');
        expect(portableSha256Hex(data)).toBe(expected);
        expect(sha256Digest(data)).toBe(`sha256:${expected}`);
      }),
      { numRuns: 500 },
    );
  });
});
