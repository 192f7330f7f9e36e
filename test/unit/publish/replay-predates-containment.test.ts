import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { VerifiedFork } from '../../../main/evidence/verify-fork';
import { predatingForkReplayText } from './support/predating-fork';

/**
 * sha256 of the replay text of support/predating-fork.ts as rendered by the code from before
 * containment (issue 11): computed by running that same fixture file (bundled with esbuild) against
 * `git archive 0c9cb77b31980d4a7bc3302d1caf6cd322186ff3`, the last commit whose replay knew nothing of
 * containment. A fork without containment facts must keep this exact text.
 */
const BEFORE_CONTAINMENT = { sha256: '2101be371935d88a8f493c7eaf99bf14277efa8b5cd2451bcdc9e8ebbcaa6c2e', bytes: 3447 };

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('replay of a fork that predates containment', () => {
  it('is byte-identical to the replay the code before containment rendered', async () => {
    const text = await predatingForkReplayText();
    expect({ sha256: sha256(text), bytes: text.length }).toEqual(BEFORE_CONTAINMENT);
    expect(text).not.toContain('containment');
  });

  it('changes once the contract or a receipt records containment (so the check above can fail)', async () => {
    const contained = (fork: VerifiedFork): VerifiedFork => ({
      ...fork,
      branches: fork.branches.map((b) => (b.receipt ? { ...b, receipt: { ...b.receipt, containment: { mode: 'runtime-only' } } } : b)),
    });
    const withContract = (fork: VerifiedFork): VerifiedFork => (fork.contract ? { ...fork, contract: { ...fork.contract, containment: { mode: 'runtime-only' } } } : fork);
    const receipts = await predatingForkReplayText(contained);
    const contract = await predatingForkReplayText(withContract);
    expect(sha256(receipts)).not.toBe(BEFORE_CONTAINMENT.sha256);
    expect(sha256(contract)).not.toBe(BEFORE_CONTAINMENT.sha256);
    expect(JSON.parse(receipts)).toMatchObject({ branches: [{ containment: { mode: 'runtime-only' } }, { containment: { mode: 'runtime-only' } }] });
    expect(JSON.parse(contract)).toMatchObject({ contract: { containment: { mode: 'runtime-only' } } });
  });
});
