import { z } from 'zod';
import { BRANCH_ID_PATTERN, FORK_ID_PATTERN } from './id-patterns';

/** `fork-` + a ULID in lowercase Crockford base32 (decisions D2). */
export const ForkIdSchema = z.string().regex(FORK_ID_PATTERN);
export type ForkId = z.infer<typeof ForkIdSchema>;

/** `branch-<profile_id>` (decisions D2). */
export const BranchIdSchema = z.string().regex(BRANCH_ID_PATTERN);
export type BranchId = z.infer<typeof BranchIdSchema>;

export const IssuerIdSchema = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/);

/** Git branch for a fork branch (decisions D2). */
export function gitBranchName(forkId: string, branchId: string): string {
  return `citadel/${forkId}/${branchId}`;
}

export const CommitShaSchema = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);
