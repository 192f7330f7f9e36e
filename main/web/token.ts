import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const TOKEN_BYTES = 32;

/** A fresh per-run secret: 32 random bytes, base64url (URL- and header-safe). */
export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * Constant-time comparison. Both sides are hashed first so that the comparison takes the same
 * time whatever the length of the guess (timingSafeEqual needs equal lengths).
 */
export function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string' || given === '') return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(given));
}
