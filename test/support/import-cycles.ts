import { cruise, type ICruiseResult } from 'dependency-cruiser';

/**
 * Every import cycle among the modules under `roots` (folders relative to `baseDir`) but those
 * whose path matches `exclude`, each as its files in import order from its alphabetically first.
 * dependency-cruiser, not madge (whose peer is TypeScript 5): it resolves TypeScript 6 and Svelte
 * imports on Node 20, and counts type-only imports, which tie rooms together as values do.
 */
export async function importCycles(baseDir: string, roots: readonly string[], exclude?: string): Promise<string[][]> {
  const { output } = await cruise([...roots], {
    baseDir,
    validate: true,
    ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    ...(exclude === undefined ? {} : { exclude: { path: exclude } }),
  });
  const cycles = new Map<string, string[]>();
  for (const violation of (output as ICruiseResult).summary.violations) {
    if (violation.rule.name !== 'no-circular') continue;
    const files = (violation.cycle ?? []).map((step) => step.name);
    const first = files.indexOf([...files].sort()[0] ?? '');
    const rotated = [...files.slice(first), ...files.slice(0, first)];
    cycles.set(rotated.join(' -> '), rotated);
  }
  return [...cycles.values()];
}
