import { randomBytes } from 'node:crypto';

/** How a runtime's CLI wants its API key to look (the gateway's inside environment says where it reads it). */
export interface PlaceholderShape {
  readonly prefix: string;
  readonly suffix: string;
}

// 48 bytes: 384 bits of randomness, far past guessing, and 64 base64url characters.
const RANDOM_BYTES = 48;

/**
 * A fresh per-attempt placeholder credential in the CLI's key shape. It is worthless anywhere but
 * at the attempt's gateway, which refuses a request carrying anything else.
 */
export function placeholderFor(shape: PlaceholderShape): string {
  return `${shape.prefix}${randomBytes(RANDOM_BYTES).toString('base64url')}${shape.suffix}`;
}
