/**
 * The id formats alone, without zod: the renderer's router checks ids in the address before the
 * schema library has loaded (issue 14's first-render bench). ids.ts builds the schemas from these.
 */

/** `fork-` + a ULID in lowercase Crockford base32 (decisions D2). */
export const FORK_ID_PATTERN = /^fork-[0-9a-hjkmnp-tv-z]{26}$/;

/** `branch-<profile_id>` (decisions D2). */
export const BRANCH_ID_PATTERN = /^branch-[a-z][a-z0-9-]{0,47}$/;
