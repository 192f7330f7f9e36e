/**
 * Walks a would-be JSON value and lists every string in it (object keys too) with its location,
 * plus every place that is not plain JSON. Iterative, so hostile nesting cannot overflow the stack.
 */

export type MemberStep = { readonly kind: 'member'; readonly key: string; readonly position: number };
type PathStep = { readonly kind: 'index'; readonly index: number } | MemberStep;

/** A location as a chain of steps back to the root (null), so a deep walk never copies paths. */
export type JsonPath = { readonly step: PathStep; readonly parent: JsonPath } | null;

export type StringSite = {
  readonly text: string;
  /** For a key, the path ends with the key's own member step. */
  readonly path: JsonPath;
  /** The member step this string is the key of (the same object as in `path`), or null for a value. */
  readonly keyOf: MemberStep | null;
};

export type StringSites = {
  /** In document order; an object key comes just before its value. */
  readonly sites: readonly StringSite[];
  /**
   * Locations of values JSON cannot carry faithfully: undefined, functions, symbols, bigints,
   * non-finite numbers, non-plain objects (Date, Map, class instances with toJSON) and cycles.
   */
  readonly nonJson: readonly JsonPath[];
};

type Work =
  | { readonly kind: 'value'; readonly value: unknown; readonly path: JsonPath }
  | { readonly kind: 'key'; readonly step: MemberStep; readonly path: JsonPath }
  | { readonly kind: 'leave'; readonly container: object };

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function collectStringSites(root: unknown): StringSites {
  const sites: StringSite[] = [];
  const nonJson: JsonPath[] = [];
  // Containers on the current descent: meeting one again is a cycle. Shared siblings are fine.
  const ancestors = new Set<object>();
  // Children are pushed in reverse so they pop in document order.
  const stack: Work[] = [{ kind: 'value', value: root, path: null }];

  for (let work = stack.pop(); work !== undefined; work = stack.pop()) {
    if (work.kind === 'leave') {
      ancestors.delete(work.container);
      continue;
    }
    if (work.kind === 'key') {
      sites.push({ text: work.step.key, path: work.path, keyOf: work.step });
      continue;
    }
    const { value, path } = work;
    if (typeof value === 'string') {
      sites.push({ text: value, path, keyOf: null });
    } else if (value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      // Scalars with no text to leak.
    } else if (typeof value !== 'object' || ancestors.has(value) || !(Array.isArray(value) || isPlainObject(value))) {
      nonJson.push(path);
    } else {
      ancestors.add(value);
      stack.push({ kind: 'leave', container: value });
      if (Array.isArray(value)) {
        for (let index = value.length - 1; index >= 0; index -= 1) {
          stack.push({ kind: 'value', value: value[index], path: { step: { kind: 'index', index }, parent: path } });
        }
      } else {
        const record = value as Record<string, unknown>;
        const keys = Object.keys(record);
        for (let position = keys.length - 1; position >= 0; position -= 1) {
          const step: MemberStep = { kind: 'member', key: keys[position] as string, position };
          const memberPath = { step, parent: path };
          stack.push({ kind: 'value', value: record[step.key], path: memberPath });
          stack.push({ kind: 'key', step, path: memberPath });
        }
      }
    }
  }
  return { sites, nonJson };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Renders a path as a JSONPath-like string: `$.branches[0].model.observed`, `$["odd key"]`.
 * A key in `hiddenKeys` is named by its position among its object's keys, `$.model.<key#2>`,
 * never by its text, here and in every path beneath it.
 */
export function renderPath(path: JsonPath, hiddenKeys: ReadonlySet<MemberStep>): string {
  const parts: string[] = [];
  for (let node = path; node !== null; node = node.parent) {
    const { step } = node;
    if (step.kind === 'index') parts.push(`[${step.index}]`);
    else if (hiddenKeys.has(step)) parts.push(`.<key#${step.position}>`);
    else if (IDENTIFIER.test(step.key)) parts.push(`.${step.key}`);
    else parts.push(`[${JSON.stringify(step.key)}]`);
  }
  return `$${parts.reverse().join('')}`;
}
