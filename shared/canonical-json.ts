// RFC 8785 (JCS) via `canonicalize`, the reference implementation by one of the RFC's authors.
import canonicalize from 'canonicalize';

/** RFC 8785 canonical JSON text of a JSON value. Throws on values JSON cannot represent. */
export function canonicalJson(value: unknown): string {
  assertJsonValue(value, '$');
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}

function assertJsonValue(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${path}: non-finite number has no JSON form`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJsonValue(item, `${path}[${i}]`));
    return;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) assertJsonValue(item, `${path}.${key}`);
    return;
  }
  throw new TypeError(`${path}: ${typeof value} is not a JSON value`);
}
