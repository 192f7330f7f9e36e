import { randomBytes } from 'node:crypto';

/** How a runtime's CLI wants its API key to look, and where it reads it inside the sandbox. */
export interface PlaceholderShape {
  readonly prefix: string;
  readonly suffix: string;
  /** Environment names the placeholder is given as. */
  readonly env: readonly string[];
}

/** A placeholder as the lead places it in the sandbox: its value, and the environment and runtime-home files that carry it. */
export interface Placeholder {
  readonly value: string;
  readonly env: Readonly<Record<string, string>>;
  readonly files: readonly { readonly relativePath: string; readonly content: string }[];
}

// 48 bytes: 384 bits of randomness, far past guessing, and 64 base64url characters.
const RANDOM_BYTES = 48;

/**
 * A fresh per-attempt placeholder credential in the CLI's key shape. It is worthless anywhere but
 * at the attempt's gateway, which refuses a request carrying anything else.
 */
export function placeholderFor(shape: PlaceholderShape): Placeholder {
  const value = `${shape.prefix}${randomBytes(RANDOM_BYTES).toString('base64url')}${shape.suffix}`;
  return { value, env: Object.fromEntries(shape.env.map((name) => [name, value])), files: [] };
}
