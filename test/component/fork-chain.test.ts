import { render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { ForkStatus } from '../../shared/fork/fork-record';
import ForkChain from '../../renderer/src/components/ForkChain.svelte';
import { ancestorsOf, followUpsByParent, MAX_ANCESTORS } from '../../renderer/src/lib/fork-chain';
import { fakeClient } from './support/fake-client';
import { digest, forkStatus, forkSummary } from './support/fixtures';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
/** The n-th fork id of a chain (n < 1024). */
const idOf = (n: number): string => `fork-01jq7m3x9r2v5k8d4f6h0n1p${CROCKFORD[Math.floor(n / 32)]}${CROCKFORD[n % 32]}`;

const lineageTo = (parent: number, branch = 'branch-codex'): NonNullable<ForkStatus['lineage']> => ({
  parent_fork_id: idOf(parent),
  parent_branch_id: branch,
  parent_contract_digest: digest(`contract ${parent}`),
  parent_execution_receipt_digest: digest(`receipt ${parent}`),
  parent_result_commit: 'b'.repeat(40),
  parent_objective_digest: digest(`objective ${parent}`),
  parent_signer_public_key_digest: digest('issuer key'),
  root_base_revision: 'a'.repeat(40),
});

/** Fork n continues fork n-1's branch-codex, down to fork 0, the first; `loop` makes fork 0 continue the last instead. */
function chainClient(length: number, options: { loop?: boolean; unreadable?: number } = {}) {
  return fakeClient({
    forkStatus: ({ fork_id }) => {
      const index = CROCKFORD.indexOf(fork_id.at(-2) ?? '') * 32 + CROCKFORD.indexOf(fork_id.at(-1) ?? '');
      if (index === options.unreadable) return { ok: false, error: { code: 'FORK_NOT_FOUND', message: 'no such fork' } };
      const lineage = index > 0 ? lineageTo(index - 1) : options.loop === true ? lineageTo(length - 1) : null;
      return { ok: true, value: forkStatus({ fork_id, title: `Step ${index}`, lineage }) };
    },
  });
}

describe('the chain of a follow-up', () => {
  it('walks up to the first fork, first fork first, each with its title and the branch continued', async () => {
    const { client, calls } = chainClient(4);
    const walk = await ancestorsOf(client, idOf(3), { fork_id: idOf(2), branch_id: 'branch-codex' });
    expect(walk.cut).toBe(false);
    expect(walk.ancestors.map((a) => [a.fork_id, a.title])).toEqual([
      [idOf(0), 'Step 0'],
      [idOf(1), 'Step 1'],
      [idOf(2), 'Step 2'],
    ]);
    expect(calls).toHaveLength(3);
  });

  it(`stops at a loop, at an unreadable fork, and after ${MAX_ANCESTORS} steps, and says the first fork was not reached`, async () => {
    const loop = chainClient(3, { loop: true });
    const looped = await ancestorsOf(loop.client, idOf(2), { fork_id: idOf(1), branch_id: 'branch-codex' });
    expect(looped).toMatchObject({ cut: true });
    expect(looped.ancestors.map((a) => a.fork_id)).toEqual([idOf(0), idOf(1)]);

    const gap = chainClient(4, { unreadable: 1 });
    const broken = await ancestorsOf(gap.client, idOf(3), { fork_id: idOf(2), branch_id: 'branch-codex' });
    expect(broken.cut).toBe(true);
    expect(broken.ancestors.map((a) => [a.fork_id, a.title])).toEqual([
      [idOf(1), undefined],
      [idOf(2), 'Step 2'],
    ]);

    const long = chainClient(MAX_ANCESTORS + 10);
    const bounded = await ancestorsOf(long.client, idOf(MAX_ANCESTORS + 9), { fork_id: idOf(MAX_ANCESTORS + 8), branch_id: 'branch-codex' });
    expect(bounded.cut).toBe(true);
    expect(bounded.ancestors).toHaveLength(MAX_ANCESTORS);
    expect(long.calls).toHaveLength(MAX_ANCESTORS);
  });

  it('shows the ancestors and the follow-ups as links to their pages', async () => {
    const { client } = chainClient(3);
    render(ForkChain, { client, forkId: idOf(2), lineage: lineageTo(1), children: [{ fork_id: idOf(5), parent_branch_id: 'branch-claude' }] });
    const chain = screen.getByRole('navigation', { name: 'Follow-up chain' });
    await waitFor(() => expect(within(chain).getByRole('link', { name: 'Step 0' })).toBeTruthy());
    expect(within(chain).getByRole('link', { name: 'Step 1' }).getAttribute('href')).toBe(`#/fork/${idOf(1)}`);
    expect(chain.textContent?.replace(/\s+/g, ' ')).toContain(`Step 1 ${idOf(1)} · branch-codex → this fork`);
    expect(within(chain).getByRole('link', { name: idOf(5) }).getAttribute('href')).toBe(`#/fork/${idOf(5)}`);
    expect(chain.textContent).toContain('(from branch-claude)');
  });
});

describe('the follow-ups of the listed forks', () => {
  it('are the listed forks that name each as their parent, oldest first', () => {
    const forks = [
      forkSummary({ fork_id: idOf(7), lineage: lineageTo(1) }),
      forkSummary({ fork_id: idOf(1) }),
      forkSummary({ fork_id: idOf(4), lineage: lineageTo(1, 'branch-claude') }),
      forkSummary({ fork_id: idOf(9), lineage: lineageTo(4) }),
      { fork_id: idOf(10), state: 'unknown' as const, problem: 'FORK_RECORD_INVALID' },
    ];
    expect([...followUpsByParent(forks)]).toEqual([
      [idOf(1), [idOf(4), idOf(7)]],
      [idOf(4), [idOf(9)]],
    ]);
  });
});
