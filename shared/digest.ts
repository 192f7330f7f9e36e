// @noble/hashes: audited, environment-free SHA-256, so shared/ also runs in the renderer.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { canonicalJson } from './canonical-json';

export const DigestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a digest is sha256: followed by 64 lowercase hex digits');
export type Digest = z.infer<typeof DigestSchema>;

type NodeCrypto = { createHash(algorithm: 'sha256'): { update(data: Uint8Array | string): { digest(encoding: 'hex'): string } } };

// Under Node, its native SHA-256 is about 6x faster than pure JS (re-verification hashes every
// receipt); the renderer has no `process` and uses @noble/hashes. Both give the same bytes.
const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') as
  | NodeCrypto
  | undefined;

/** `sha256:<hex>` of raw bytes, or of a string's UTF-8 bytes (decisions D3). */
export function sha256Digest(data: Uint8Array | string): Digest {
  return `sha256:${nodeCrypto ? nodeCrypto.createHash('sha256').update(data).digest('hex') : portableSha256Hex(data)}`;
}

/** The pure-JS path the renderer takes; tests hold it byte-equal to Node's. */
export function portableSha256Hex(data: Uint8Array | string): string {
  return bytesToHex(sha256(typeof data === 'string' ? utf8ToBytes(data) : data));
}

/** Digest of a JSON value: SHA-256 over the UTF-8 bytes of its RFC 8785 serialization. */
export function digestOf(value: unknown): Digest {
  return sha256Digest(canonicalJson(value));
}
