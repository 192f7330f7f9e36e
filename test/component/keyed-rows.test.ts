import { afterEach, describe, expect, it } from 'vitest';
import { forkRowMarkup, problemRowMarkup } from '../../renderer/src/lib/fork-row-markup';
import { syncKeyedRows, type KeyedRow } from '../../renderer/src/lib/keyed-rows';

const link = (key: string, text = key): KeyedRow => ({ key, markup: `<td><a href="#/fork/${key}">${text}</a></td>`, className: '' });
const body = (): HTMLTableSectionElement => {
  const table = document.createElement('table');
  const tbody = table.createTBody();
  document.body.append(table);
  return tbody;
};
const keys = (tbody: HTMLTableSectionElement) => [...tbody.rows].map((tr) => tr.dataset.key);

afterEach(() => document.body.replaceChildren());

describe('keyed rows', () => {
  it('builds the first render in one pass and then touches only what changed', () => {
    const tbody = body();
    syncKeyedRows(tbody, [link('a'), link('b'), link('c')]);
    expect(keys(tbody)).toEqual(['a', 'b', 'c']);
    const [a, b, c] = [...tbody.rows];

    syncKeyedRows(tbody, [link('c'), link('a', 'A changed'), { ...link('d') }, link('b')]);
    expect(keys(tbody)).toEqual(['c', 'a', 'd', 'b']);
    const [c2, a2, , b2] = [...tbody.rows];
    // Same elements, moved; the changed row keeps its element and gets new cells.
    expect([c2, a2, b2]).toEqual([c, a, b]);
    expect(a2?.textContent).toBe('A changed');

    syncKeyedRows(tbody, [link('d', 'D'), { ...link('b'), className: 'changed' }]);
    expect(keys(tbody)).toEqual(['d', 'b']);
    expect(tbody.rows[1]).toBe(b);
    expect(tbody.rows[1]?.className).toBe('changed');
    syncKeyedRows(tbody, []);
    expect(tbody.rows).toHaveLength(0);
  });

  it('gives focus back to a focused link whose row only moved', () => {
    const tbody = body();
    syncKeyedRows(tbody, [link('a'), link('b'), link('c')]);
    const focused = tbody.querySelector<HTMLAnchorElement>('a[href="#/fork/c"]');
    focused?.focus();
    syncKeyedRows(tbody, [link('c'), link('a'), link('b')]);
    expect(keys(tbody)).toEqual(['c', 'a', 'b']);
    expect(document.activeElement).toBe(focused);
  });

  it('keeps a focused link focused through every update but its own row’s, and then focuses the new link', () => {
    const tbody = body();
    syncKeyedRows(tbody, [link('a'), link('b')]);
    tbody.querySelector<HTMLAnchorElement>('a[href="#/fork/b"]')?.focus();
    syncKeyedRows(tbody, [link('a', 'A changed'), link('b')]);
    expect(document.activeElement?.getAttribute('href')).toBe('#/fork/b');
    syncKeyedRows(tbody, [link('b', 'B changed'), link('a', 'A changed')]);
    expect(document.activeElement?.textContent).toBe('B changed');
  });

  it('gives focus back to the same kind of element when its row is refilled: a pick box to the new pick box', () => {
    const tbody = body();
    const row = (key: string, checked: boolean): KeyedRow => ({
      key,
      markup: `<td><input type="checkbox" data-pick${checked ? ' checked' : ''}></td><td><a href="#/fork/${key}">${key}</a></td>`,
      className: '',
    });
    syncKeyedRows(tbody, [row('a', false), row('b', false)]);
    tbody.querySelector<HTMLInputElement>('tr[data-key="b"] input')?.focus();
    syncKeyedRows(tbody, [row('a', false), row('b', true)]);
    expect(document.activeElement).toBe(tbody.querySelector('tr[data-key="b"] input'));
    expect((document.activeElement as HTMLInputElement).checked).toBe(true);
    // A link focused in a row that now starts with a pick box gets the new link, not the box.
    tbody.querySelector<HTMLAnchorElement>('tr[data-key="a"] a')?.focus();
    syncKeyedRows(tbody, [row('a', true), row('b', true)]);
    expect(document.activeElement?.getAttribute('href')).toBe('#/fork/a');
  });
});

describe('fork row markup', () => {
  it('escapes every value it places, so a hostile title is text and never markup', () => {
    const hostile = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
    const tbody = body();
    const markup = forkRowMarkup({
      href: '#/fork/x"onclick="alert(3)',
      title: hostile,
      untitled: false,
      demo: true,
      changed: true,
      id: 'fork-<b>',
      repo: '<i>repo</i>',
      repoUnknown: false,
      state: 'ready',
      stateTone: '"><x>',
      needsDecision: true,
      outcome: { text: '<o>outcome</o>', tone: '"><x>' },
      receipts: '<r>1 of 2</r>',
      branches: [{ branch_id: 'branch-a', profile_id: '<u>p</u>', state: 'failed', failure_code: 'VERIFIER_FAILED', blocked_reason: null, blocked_code: null }],
      picking: true,
      pick: { checked: true },
      created: '2026-11-01T00:00:00.000Z',
      createdTitle: '<t>',
      age: '<age>',
      parent: { href: '#/fork/p"onclick="alert(4)', forkId: '<pf>', branchId: '<pb>' },
      children: ['<c1>', '<c2>', '<c3>', '<c4>'].map((forkId) => ({ href: `#/fork/${forkId}`, forkId })),
    });
    syncKeyedRows(tbody, [{ key: 'k"><x', markup, className: '' }, { key: 'broken', markup: problemRowMarkup('fork-<x>', 'unknown', '<p>', true), className: '' }]);
    expect(tbody.querySelectorAll('img, script, b, i, u, t, age, x, p, o, r, pf, pb, c1, c2, c3, c4')).toHaveLength(0);
    const anchor = tbody.querySelector('a');
    expect(anchor?.textContent).toBe(hostile);
    expect(anchor?.getAttribute('href')).toBe('#/fork/x"onclick="alert(3)');
    expect(anchor?.hasAttribute('onclick')).toBe(false);
    expect(tbody.rows[0]?.dataset.key).toBe('k"><x');
    expect(tbody.textContent).toContain('<u>p</u> failed: VERIFIER_FAILED');
    expect(tbody.textContent).toContain('unreadable: <p>');
    expect(tbody.textContent).toContain('<o>outcome</o>');
    // Issue 32: the parent and the first follow-ups as links, and how many more there are.
    expect(tbody.textContent).toContain('continues <pf> / <pb>');
    expect(tbody.textContent).toContain('4 follow-ups: <c1>, <c2>, <c3> and 1 more');
    expect([...tbody.querySelectorAll('.lineage a')].map((a) => a.getAttribute('href'))).toEqual(['#/fork/p"onclick="alert(4)', '#/fork/<c1>', '#/fork/<c2>', '#/fork/<c3>']);
    const pick = tbody.querySelector<HTMLInputElement>('input[data-pick]');
    expect(pick?.checked).toBe(true);
    expect(pick?.getAttribute('aria-label')).toBe(`Pick ${hostile} (fork-<b>) for cleaning`);
  });
});
