import { z } from 'zod';
import { digestOf, DigestSchema, type Digest } from '../digest';
import { WorktreeIncludeEntrySchema } from './contract';
import { IsoTimeSchema } from '../iso-time';

/**
 * The operator confirms which of their ignored files a repository's `.worktreeinclude` hands to
 * every agent (issue 27): a repository cloned from anywhere commits that list, so its first fork,
 * and the first after the list changes, is refused until the operator has seen it and said yes.
 */

/** One file the list copies, as the operator is shown it: its name and size, never its content. */
export const IncludeListEntrySchema = WorktreeIncludeEntrySchema.pick({ path: true, size_bytes: true });
export type IncludeListEntry = z.infer<typeof IncludeListEntrySchema>;

export const includeListOf = (entries: readonly IncludeListEntry[]): IncludeListEntry[] => entries.map((e) => ({ path: e.path, size_bytes: e.size_bytes }));

/** The files a start would copy, the digest a confirmation is kept under, and whether this repository's operator confirmed that list. */
export const IncludeConfirmationSchema = z.strictObject({
  files: z.array(IncludeListEntrySchema),
  digest: DigestSchema,
  confirmed: z.boolean(),
});
export type IncludeConfirmation = z.infer<typeof IncludeConfirmationSchema>;

/**
 * The digest a confirmation is kept under: the sorted repository-relative paths only. Which files
 * leave the checkout is what the operator agreed to; a rotated secret (new content, new size) in a
 * file already agreed to changes nothing of that, a file added or removed does.
 */
export function includeListDigest(paths: readonly string[]): Digest {
  return digestOf({ worktree_include: [...paths].sort() });
}

/** Exact, as the file is: a secret of 40 bytes is not "0 KB". */
export const byteSize = (bytes: number): string => `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;

/** `.env (24 bytes), config/local.json (35 bytes)`: the list as a refusal and the CLI print it. */
export function describeIncludeList(files: readonly IncludeListEntry[]): string {
  return files.map((file) => `${file.path} (${byteSize(file.size_bytes)})`).join(', ');
}

export const INCLUDE_CONFIRMATIONS_SCHEMA_VERSION = 1;
/** The newest kept; an older one dropped only means its list is asked about again. */
export const MAX_INCLUDE_CONFIRMATIONS = 128;

/** One confirmation: a repository (its identity digest, main/landing/target-identity.ts) and the list digest its operator confirmed. */
export const IncludeConfirmationRecordSchema = z.strictObject({
  repository: DigestSchema,
  /** Where that repository was, for a person reading the file; the identity is `repository`. */
  repository_root: z.string(),
  include_digest: DigestSchema,
  confirmed_at: IsoTimeSchema,
});
export type IncludeConfirmationRecord = z.infer<typeof IncludeConfirmationRecordSchema>;

/** `<fork root>/settings/include-confirmations.json`. */
export const IncludeConfirmationsFileSchema = z.strictObject({
  schema_version: z.literal(INCLUDE_CONFIRMATIONS_SCHEMA_VERSION),
  confirmations: z.array(IncludeConfirmationRecordSchema).max(MAX_INCLUDE_CONFIRMATIONS),
});
export type IncludeConfirmationsFile = z.infer<typeof IncludeConfirmationsFileSchema>;
