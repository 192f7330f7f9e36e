/**
 * Where a branch's failure code links (issue 29): the log that explains it, or, when none does,
 * the heading of the branch's output. BranchOutput puts this id on that target.
 */
export const failureAnchorId = (branchId: string): string => `branch-${branchId}-why`;

/**
 * Follows an in-page link without touching the URL hash, which the router owns: opens the target
 * when it is a disclosure, scrolls it into view and moves focus to it (its summary, for a disclosure).
 */
export function followInPageLink(event: MouseEvent): void {
  const link = event.currentTarget;
  if (!(link instanceof HTMLAnchorElement)) return;
  const target = document.getElementById(decodeURIComponent(link.hash.slice(1)));
  if (target === null) return;
  event.preventDefault();
  if (target instanceof HTMLDetailsElement) target.open = true;
  const focus = target instanceof HTMLDetailsElement ? target.querySelector('summary') : target;
  target.scrollIntoView?.({ block: 'start' });
  focus?.focus();
}
