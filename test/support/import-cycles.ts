import { posix } from 'node:path';
import { cruise, type ICruiseResult, type IModule } from 'dependency-cruiser';

/** The import cycles among a tree's modules, each as a path from its alphabetically first node. */
export interface ImportCycles {
  /** Cycles between files, each as its files in import order. */
  readonly files: string[][];
  /** Cycles between folders (each file collapsed to the folder that contains it), each as its folders in import order. */
  readonly folders: string[][];
}

/**
 * Every import cycle among the modules under `roots` (folders relative to `baseDir`) but those
 * whose path matches `exclude`: between files, and between the folders that contain them.
 * dependency-cruiser, not madge (whose peer is TypeScript 5): it resolves TypeScript 6 and Svelte
 * imports on Node 20, and counts type-only imports, which tie rooms together as values do.
 */
export async function importCycles(baseDir: string, roots: readonly string[], exclude?: string): Promise<ImportCycles> {
  const { output } = await cruise([...roots], {
    baseDir,
    validate: true,
    ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    ...(exclude === undefined ? {} : { exclude: { path: exclude } }),
  });
  const result = output as ICruiseResult;
  return { files: fileCycles(result), folders: folderCycles(result) };
}

function fileCycles(result: ICruiseResult): string[][] {
  const cycles = new Map<string, string[]>();
  for (const violation of result.summary.violations) {
    if (violation.rule.name !== 'no-circular') continue;
    const rotated = rotatedToFirst((violation.cycle ?? []).map((step) => step.name));
    cycles.set(rotated.join(' -> '), rotated);
  }
  return [...cycles.values()];
}

/** The same cycle, starting from its alphabetically first node. */
function rotatedToFirst(cycle: readonly string[]): string[] {
  const first = cycle.indexOf([...cycle].sort()[0] ?? '');
  return [...cycle.slice(first), ...cycle.slice(0, first)];
}

/**
 * One cycle per knot of folders that reach each other (a strongly connected component): its
 * shortest, from its alphabetically first folder. Fixing it may leave another cycle in the same
 * knot, which the next run then names.
 */
function folderCycles(result: ICruiseResult): string[][] {
  const edges = folderEdges(result);
  return stronglyConnected(edges)
    .filter((component) => component.length > 1)
    .map((component) => {
      const members = new Set(component);
      const cycles = [...component].sort().map((start) => rotatedToFirst(shortestCycle(edges, members, start)));
      return cycles.reduce((best, cycle) => (cycle.length < best.length ? cycle : best));
    })
    .sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

/** Folder → the other folders its files import; only the tree's own files (no packages, no Node built-ins). */
function folderEdges(result: ICruiseResult): Map<string, Set<string>> {
  const own = new Set(result.modules.filter(isOwnFile).map((module) => module.source));
  const edges = new Map<string, Set<string>>();
  for (const module of result.modules) {
    if (!own.has(module.source)) continue;
    const from = posix.dirname(module.source);
    const targets = edges.get(from) ?? new Set<string>();
    edges.set(from, targets);
    for (const dependency of module.dependencies) {
      if (!own.has(dependency.resolved)) continue;
      const to = posix.dirname(dependency.resolved);
      if (to !== from) targets.add(to);
    }
  }
  return edges;
}

function isOwnFile(module: IModule): boolean {
  return module.coreModule !== true && module.couldNotResolve !== true && !module.source.split('/').includes('node_modules');
}

/** Tarjan's strongly connected components, in discovery order. */
function stronglyConnected(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component);
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return components;
}

/** The shortest path from `start` back to itself inside `component` (breadth first, neighbours alphabetically). */
function shortestCycle(edges: Map<string, Set<string>>, component: Set<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head += 1) {
    const node = queue[head] ?? '';
    for (const next of [...(edges.get(node) ?? [])].sort()) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        for (let step = cameFrom.get(node); step !== undefined; step = cameFrom.get(step)) path.unshift(step);
        return path;
      }
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, node);
      queue.push(next);
    }
  }
  return [start];
}
