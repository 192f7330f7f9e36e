/** Walking and editing stored JSON: every node by path, one edit per copy. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonPath = readonly (string | number)[];

export const DELETE = Symbol('delete');

export const isObject = (v: Json | undefined): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isLeaf = (v: Json): boolean => v === null || typeof v !== 'object';

/** Every node below the root, depth first, in stored order. */
export function nodes(value: Json, prefix: JsonPath = []): JsonPath[] {
  const children: [string | number, Json][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : isObject(value) ? Object.entries(value) : [];
  return children.flatMap(([key, child]) => {
    const here = [...prefix, key];
    return [here, ...nodes(child, here)];
  });
}

/** Every object node, the root included. */
export const objectNodes = (value: Json): JsonPath[] => [[], ...nodes(value)].filter((p) => isObject(getAt(value, p)));

export function getAt(root: Json, p: JsonPath): Json {
  let node: Json | undefined = root;
  for (const key of p) node = Array.isArray(node) && typeof key === 'number' ? node[key] : isObject(node) && typeof key === 'string' ? node[key] : undefined;
  if (node === undefined) throw new Error(`no node at ${p.join('.')}`);
  return node;
}

/** A copy of `root` with the node at `p` replaced (or removed). */
export function setAt(root: Json, p: JsonPath, value: Json | typeof DELETE): Json {
  const copy = structuredClone(root);
  const parent = getAt(copy, p.slice(0, -1));
  const key = p[p.length - 1];
  if (Array.isArray(parent) && typeof key === 'number') {
    if (value === DELETE) parent.splice(key, 1);
    else parent[key] = value;
  } else if (isObject(parent) && typeof key === 'string') {
    if (value === DELETE) delete parent[key];
    else parent[key] = value;
  } else throw new Error(`cannot set ${p.join('.')}`);
  return copy;
}

const NEXT: Record<string, string> = { '9': '0', z: 'a', Z: 'A' };
const NEXT_HEX: Record<string, string> = { '9': 'a', f: '0' };
/**
 * A different value of the same type and, where possible, the same format: the last letter or digit
 * moved on by one (within 0-9a-f for digests, commits and keys; the first character of a base64
 * signature, whose last characters carry padding). null becomes 0: "unknown" turned into zero.
 */
export function tweak(value: Json): Json {
  if (value === null) return 0;
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'string') {
    const alnum = [...value].map((ch, i) => (/[A-Za-z0-9]/.test(ch) ? i : -1)).filter((i) => i >= 0);
    const at = value.endsWith('=') ? alnum[0] : alnum[alnum.length - 1];
    const ch = at === undefined ? undefined : value[at];
    if (at === undefined || ch === undefined) return `${value}x`;
    const next = /^(sha256:)?[0-9a-f]+$/.test(value) ? NEXT_HEX[ch] : NEXT[ch];
    return value.slice(0, at) + (next ?? String.fromCharCode(ch.charCodeAt(0) + 1)) + value.slice(at + 1);
  }
  throw new Error('tweak takes a leaf');
}

export const pathLabel = (p: JsonPath): string => (p.length === 0 ? '(root)' : p.join('.'));
export const jsonText = (value: Json): string => `${JSON.stringify(value, null, 2)}\n`;

/** The leaf paths at which two JSON values differ (a removed or added key counts as its path). */
export function differences(a: Json, b: Json, prefix: JsonPath = []): JsonPath[] {
  if (isLeaf(a) || isLeaf(b) || Array.isArray(a) !== Array.isArray(b)) return a === b ? [] : [prefix];
  const keysOf = (v: Json): (string | number)[] => (Array.isArray(v) ? [...v.keys()] : Object.keys(v as object));
  const keys = new Set<string | number>([...keysOf(a), ...keysOf(b)]);
  return [...keys].flatMap((k) => {
    const x = (a as Record<string | number, Json>)[k];
    const y = (b as Record<string | number, Json>)[k];
    if (x === undefined || y === undefined) return x === y ? [] : [[...prefix, k]];
    return differences(x, y, [...prefix, k]);
  });
}
