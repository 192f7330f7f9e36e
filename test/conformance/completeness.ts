import type { RuntimeAdapter } from '../../main/runtimes/adapter-contract/runtime-adapter';
import type { ConformanceCase } from './cases/conformance-case';

/**
 * Why a list of cases does not cover a set of registered adapters exactly once each, as sorted
 * messages (none when complete). Catches a removed case, a renamed one, a case registered for the
 * wrong runtime, and an adapter registered under a key other than its id.
 */
export function completenessProblems(cases: readonly ConformanceCase[], adapters: Readonly<Record<string, RuntimeAdapter>>): string[] {
  const problems: string[] = [];
  for (const [key, adapter] of Object.entries(adapters)) {
    if (adapter.id !== key) problems.push(`adapter "${adapter.id}" is registered under "${key}"`);
    const claiming = cases.filter((c) => c.runtime === key);
    if (claiming.length === 0) problems.push(`runtime "${key}" has no conformance case`);
    if (claiming.length > 1) problems.push(`runtime "${key}" has ${claiming.length} conformance cases`);
  }
  for (const c of cases) {
    const registered = Object.hasOwn(adapters, c.runtime) ? adapters[c.runtime] : undefined;
    // An adapter whose id differs from its key is reported above, so identity is enough here.
    if (registered === undefined) problems.push(`case "${c.runtime}" claims a runtime that is not registered`);
    else if (registered !== c.adapter) problems.push(`case "${c.runtime}" tests adapter "${c.adapter.id}", not the one registered as "${c.runtime}"`);
  }
  return problems.sort();
}
