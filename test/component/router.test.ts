import { describe, expect, it } from 'vitest';
import { hrefFor, parseHash, type Route } from '../../renderer/src/lib/router';
import { FORK_ID } from './support/fixtures';

describe('hash router', () => {
  const routes: Route[] = [
    { view: 'forks' },
    { view: 'new' },
    { view: 'new', from: { forkId: FORK_ID, branchId: 'branch-codex' } },
    { view: 'settings' },
    { view: 'proof', forkId: null },
    { view: 'fork', forkId: FORK_ID },
    { view: 'compare', forkId: FORK_ID },
    { view: 'select', forkId: FORK_ID },
    { view: 'select', forkId: FORK_ID, branchId: 'branch-codex' },
    { view: 'land', forkId: FORK_ID },
    { view: 'proof', forkId: FORK_ID },
  ];

  it.each(routes)('round-trips $view', (route) => {
    expect(parseHash(hrefFor(route))).toEqual(route);
  });

  it('treats an empty hash as the fork list', () => {
    expect(parseHash('')).toEqual({ view: 'forks' });
    expect(parseHash('#/')).toEqual({ view: 'forks' });
  });

  it.each(['#/fork/not-a-fork-id', `#/fork/${FORK_ID}/merge`, `#/fork/${FORK_ID}/land/extra`, '#/d2h-123', `#/fork/${FORK_ID}/select?branch=not-a-branch`, `#/fork/${FORK_ID}/land?branch=branch-codex`, `#/new?from=${FORK_ID}`, `#/new?from=${FORK_ID}/not-a-branch`, '#/new?from=fork-x/branch-codex'])('does not route %s', (hash) => {
    expect(parseHash(hash).view).toBe('not-found');
  });
});
