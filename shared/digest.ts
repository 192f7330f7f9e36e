// @noble/hashes: audited, environment-free SHA-256, so shared/ also runs in the renderer.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { canonicalJson } from './canonical-json';

export const DigestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a digest is sha256: followed by 64 lowercase hex digits');
export type Digest = z.infer<typeof DigestSchema>;

/** `sha256:<hex>` of raw bytes, or of a string's UTF-8 bytes (decisions D3). */
export function sha256Digest(data: Uint8Array | string): Digest {
  const bytes = typeof data === 'string' ? utf8ToBytes(data) : data;
  return `sha256:${bytesToHex(sha256(bytes))}`;
}

/** Digest of a JSON value: SHA-256 over the UTF-8 bytes of its RFC 8785 serialization. */
export function digestOf(value: unknown): Digest {
  return sha256Digest(canonicalJson(value));
}
