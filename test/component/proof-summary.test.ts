import { render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProofProjection } from '../../shared/publish/replay';
import ProofSummary from '../../renderer/src/components/ProofSummary.svelte';
import { PROOF_CACHE_KEY, ProofCache } from '../../renderer/src/lib/proof-cache.svelte';
import { digest } from './support/fixtures';

const projection = (over: Partial<ProofProjection> = {}): ProofProjection => ({
  fork_id: 'fork-01',
  report_digest: digest('report'),
  branches: 2,
  verified_receipts: 2,
  comparable: 2,
  model_proof: { passed: 2, failed: 0, unknown: 0 },
  outcome: 'recommend',
  recommended_branch_id: 'branch-a',
  containment: { contained: 2, runtime_only: 0 },
  ...over,
});

afterEach(() => sessionStorage.clear());

/** Issue 29, item 6: "Verified receipts: unknown" on every row after a reload. */
describe('the fork list’s receipt counts', () => {
  it('survive a reload of the tab, for the revision they were verified at only', () => {
    new ProofCache(sessionStorage).remember(7, projection({ verified_receipts: 1 }));
    // A reload: a new page of the same tab builds its cache from the tab's session storage.
    const reloaded = new ProofCache(sessionStorage);
    expect(reloaded.known('fork-01', 7)).toEqual({ revision: 7, verified_receipts: 1, branches: 2 });
    expect(reloaded.known('fork-01', 8)).toBeNull();
    expect(reloaded.known('fork-02', 7)).toBeNull();
  });

  it('start empty from storage that is damaged or holds another shape, and from none at all', () => {
    sessionStorage.setItem(PROOF_CACHE_KEY, '{not json');
    expect(new ProofCache(sessionStorage).known('fork-01', 7)).toBeNull();
    sessionStorage.setItem(PROOF_CACHE_KEY, JSON.stringify([['fork-01', { revision: 7, verified_receipts: 'all' }], ['fork-02', { revision: 3, verified_receipts: 1, branches: 1 }]]));
    const mixed = new ProofCache(sessionStorage);
    expect(mixed.known('fork-01', 7)).toBeNull();
    expect(mixed.known('fork-02', 3)).toEqual({ revision: 3, verified_receipts: 1, branches: 1 });
    const memoryOnly = new ProofCache(null);
    memoryOnly.remember(1, projection());
    expect(memoryOnly.known('fork-01', 1)).not.toBeNull();
  });
});

describe('ProofSummary', () => {
  it('counts with the right plural and words the comparison', () => {
    render(ProofSummary, { props: { projection: projection({ branches: 1, verified_receipts: 1, comparable: 0, containment: { contained: 1, runtime_only: 0 }, outcome: 'insufficient-evidence', recommended_branch_id: null }) } });
    const summary = document.querySelector('.proof-summary');
    expect(summary).toHaveTextContent('Verified receipts 1 of 1 branch');
    expect(summary).toHaveTextContent('Comparable 0 of 1 branch');
    expect(screen.getByTestId('proof-containment')).toHaveTextContent('1 of 1 verified branch ran inside an OS sandbox');
    expect(screen.getByTestId('proof-outcome')).toHaveTextContent('insufficient evidence: fewer than two branches are comparable, so nothing is recommended');
    expect(summary).not.toHaveTextContent(/insufficient-evidence|\b1 branches\b/);
  });

  it('names the recommended branch, and says nothing is compared while a branch has not finished', () => {
    const first = render(ProofSummary, { props: { projection: projection() } });
    expect(screen.getByTestId('proof-outcome')).toHaveTextContent('recommends branch-a');
    first.unmount();
    render(ProofSummary, { props: { projection: projection({ outcome: 'insufficient-evidence', recommended_branch_id: null, verified_receipts: 0, comparable: 0 }), unsettled: 1 } });
    expect(screen.getByTestId('proof-outcome')).toHaveTextContent('not compared yet: 1 branch has not finished');
    expect(screen.getByTestId('proof-containment')).toHaveTextContent('no branch has a verified receipt yet');
  });
});
