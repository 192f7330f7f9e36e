import { escapeHtml } from './html';

/**
 * A table body kept equal to a list of rows given as markup, by key: the first render is one
 * innerHTML (a thousand rows at once, as fast as a static page), and later renders touch only the
 * rows whose markup or class changed, move rows whose order changed and drop rows that left. Focus
 * survives: a moved row's focused element gets it back, and in a refilled row the new element of
 * the same kind takes it (a link for a link, a pick box for a pick box).
 */
export interface KeyedRow {
  readonly key: string;
  /** The row's cells; the caller escapes every value in it. */
  readonly markup: string;
  readonly className: string;
}

// The markup each row element was last filled with, so an unchanged row is never parsed again.
const filledWith = new WeakMap<Element, string>();

export function syncKeyedRows(body: HTMLTableSectionElement, rows: readonly KeyedRow[]): void {
  if (body.rows.length === 0) {
    body.innerHTML = rows.map((row) => `<tr data-key="${escapeHtml(row.key)}"${row.className === '' ? '' : ` class="${escapeHtml(row.className)}"`}>${row.markup}</tr>`).join('');
    rows.forEach((row, i) => {
      const tr = body.rows[i];
      if (tr !== undefined) filledWith.set(tr, row.markup);
    });
    return;
  }
  const focus = focusWithin(body);
  const existing = new Map<string, HTMLTableRowElement>();
  for (const tr of body.rows) if (tr.dataset.key !== undefined) existing.set(tr.dataset.key, tr);
  let cursor = body.firstElementChild;
  for (const row of rows) {
    let tr = existing.get(row.key);
    existing.delete(row.key);
    if (tr === undefined) {
      tr = body.ownerDocument.createElement('tr');
      tr.dataset.key = row.key;
    }
    if (filledWith.get(tr) !== row.markup) {
      tr.innerHTML = row.markup;
      filledWith.set(tr, row.markup);
    }
    if (tr.className !== row.className) tr.className = row.className;
    if (tr === cursor) cursor = cursor.nextElementSibling;
    else body.insertBefore(tr, cursor);
  }
  for (const tr of existing.values()) tr.remove();
  focus?.restore();
}

/**
 * The element focused inside `body`, if any, and how to give focus back after rows were refilled
 * or moved (either blurs it): to the same element if it is still there, else to the element of the
 * same kind in its row (a link for a link, a checkbox for a checkbox), else its row's first
 * focusable element, if the row is still there.
 */
function focusWithin(body: HTMLTableSectionElement): { restore(): void } | null {
  const active = body.ownerDocument.activeElement;
  if (!(active instanceof HTMLElement) || !body.contains(active)) return null;
  const key = active.closest('tr')?.dataset.key;
  const kindOf = (element: Element): string => `${element.tagName} ${element.getAttribute('type') ?? ''}`;
  const kind = kindOf(active);
  return {
    restore() {
      if (body.ownerDocument.activeElement === active) return;
      if (active.isConnected && body.contains(active)) return active.focus({ preventScroll: true });
      const row = [...body.rows].find((tr) => tr.dataset.key === key);
      const focusable = [...(row?.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]') ?? [])];
      (focusable.find((element) => kindOf(element) === kind) ?? focusable[0])?.focus({ preventScroll: true });
    },
  };
}
