/**
 * The named functions of a module, memoised by their arguments: for reads of the target
 * repository, which no mutation touches, so each distinct question reaches real git once.
 */
export function memoised<M extends Record<string, unknown>>(actual: M, names: readonly (keyof M & string)[]): M {
  const out: Record<string, unknown> = { ...actual };
  for (const name of names) {
    const fn = actual[name];
    if (typeof fn !== 'function') throw new Error(`${name} is not a function`);
    const seen = new Map<string, unknown>();
    out[name] = (...args: unknown[]): unknown => {
      const key = JSON.stringify(args);
      if (!seen.has(key)) seen.set(key, (fn as (...a: unknown[]) => unknown)(...args));
      return seen.get(key);
    };
  }
  return out as M;
}

/**
 * The named functions of a module, memoised per first argument (by identity: a context or key
 * store, which no mutation touches) and by the JSON of the rest: for answers pure of that context,
 * such as whether a signing key is one the local key store holds.
 */
export function memoisedPerContext<M extends Record<string, unknown>>(actual: M, names: readonly (keyof M & string)[]): M {
  const out: Record<string, unknown> = { ...actual };
  for (const name of names) {
    const fn = actual[name];
    if (typeof fn !== 'function') throw new Error(`${name} is not a function`);
    const seen = new WeakMap<object, Map<string, unknown>>();
    out[name] = (context: object, ...rest: unknown[]): unknown => {
      const mine = seen.get(context) ?? new Map<string, unknown>();
      seen.set(context, mine);
      const key = JSON.stringify(rest);
      if (!mine.has(key)) mine.set(key, (fn as (...a: unknown[]) => unknown)(context, ...rest));
      return mine.get(key);
    };
  }
  return out as M;
}
