import { BRANCH_ID_PATTERN, FORK_ID_PATTERN } from '../../../shared/fork/id-patterns';

/** Every screen of Mission Control, addressed by the URL hash so reloads and links keep their place. */
export type Route =
  | { view: 'forks' }
  /** `from`: the branch a follow-up continues (issue 32), as `?from=FORK_ID/BRANCH_ID`, so a reload keeps it. */
  | { view: 'new'; from?: { forkId: string; branchId: string } }
  | { view: 'fork'; forkId: string }
  | { view: 'compare'; forkId: string }
  /** `branchId`: the branch chosen beforehand (Compare's Select button), as `?branch=…`. */
  | { view: 'select'; forkId: string; branchId?: string }
  | { view: 'land'; forkId: string }
  | { view: 'proof'; forkId: string | null }
  | { view: 'settings' }
  | { view: 'not-found'; hash: string };

const FORK_SUBVIEWS = ['compare', 'select', 'land', 'proof'] as const;

export function parseHash(hash: string): Route {
  const path = hash.replace(/^#/, '');
  const preselected = selectWithBranch(path) ?? newFrom(path);
  if (preselected !== null) return preselected;
  const parts = path.split('/').filter((part) => part !== '');
  const [first, second, third, ...rest] = parts;
  if (first === undefined || (first === 'forks' && second === undefined)) return { view: 'forks' };
  if (second === undefined) {
    if (first === 'new') return { view: 'new' };
    if (first === 'settings') return { view: 'settings' };
    if (first === 'proof') return { view: 'proof', forkId: null };
  }
  if (first === 'fork' && second !== undefined && FORK_ID_PATTERN.test(second) && rest.length === 0) {
    if (third === undefined) return { view: 'fork', forkId: second };
    const sub = FORK_SUBVIEWS.find((name) => name === third);
    if (sub !== undefined) return { view: sub, forkId: second };
  }
  return { view: 'not-found', hash: path };
}

/** `fork/ID/select?branch=BRANCH_ID`, the one route with a query; null for any other path. */
function selectWithBranch(path: string): Route | null {
  const match = /^\/?fork\/([^/?]+)\/select\?branch=([^&/?]+)$/.exec(path);
  if (match === null) return null;
  const [, forkId = '', branchId = ''] = match;
  return FORK_ID_PATTERN.test(forkId) && BRANCH_ID_PATTERN.test(branchId) ? { view: 'select', forkId, branchId } : null;
}

/** `new?from=FORK_ID/BRANCH_ID`: New Fork continuing a branch; null for any other path. */
function newFrom(path: string): Route | null {
  const match = /^\/?new\?from=([^/?&]+)\/([^/?&]+)$/.exec(path);
  if (match === null) return null;
  const [, forkId = '', branchId = ''] = match;
  return FORK_ID_PATTERN.test(forkId) && BRANCH_ID_PATTERN.test(branchId) ? { view: 'new', from: { forkId, branchId } } : { view: 'not-found', hash: path };
}

export function hrefFor(route: Route): string {
  switch (route.view) {
    case 'forks':
      return '#/forks';
    case 'new':
      return route.from === undefined ? '#/new' : `#/new?from=${route.from.forkId}/${route.from.branchId}`;
    case 'settings':
      return '#/settings';
    case 'fork':
      return `#/fork/${route.forkId}`;
    case 'proof':
      return route.forkId === null ? '#/proof' : `#/fork/${route.forkId}/proof`;
    case 'select':
      return `#/fork/${route.forkId}/select${route.branchId === undefined ? '' : `?branch=${route.branchId}`}`;
    case 'compare':
    case 'land':
      return `#/fork/${route.forkId}/${route.view}`;
    case 'not-found':
      return `#${route.hash}`;
  }
}

/** The current route of a window, kept in sync with its hash; `stop` removes the listener. */
export function watchRoute(win: Window, onRoute: (route: Route) => void): () => void {
  const update = (): void => onRoute(parseHash(win.location.hash));
  win.addEventListener('hashchange', update);
  update();
  return () => win.removeEventListener('hashchange', update);
}
