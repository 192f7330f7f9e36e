import path from 'node:path';
import type { Digest } from '../../shared/digest';
import {
  INCLUDE_CONFIRMATIONS_SCHEMA_VERSION,
  IncludeConfirmationsFileSchema,
  MAX_INCLUDE_CONFIRMATIONS,
  type IncludeConfirmationRecord,
} from '../../shared/fork/include-confirmation';
import { writePrivateJson } from './atomic-file';
import type { ForkRoot } from './fork-root';
import { readStoredJson, UNTRUSTED } from './read-stored-json';

export function includeConfirmationsFile(root: ForkRoot): string {
  return root.settingsFile('include-confirmations.json');
}

/** Whether the operator confirmed list `includeDigest` for `repository`. A missing or damaged file confirms nothing: the list is asked about again. */
export async function isIncludeListConfirmed(root: ForkRoot, repository: Digest, includeDigest: Digest): Promise<boolean> {
  return (await readConfirmations(root)).some((c) => c.repository === repository && c.include_digest === includeDigest);
}

// One change at a time in this process: two records racing would each write the list they read.
// Across processes the later write wins; a confirmation lost that way is only asked for again.
let queue: Promise<unknown> = Promise.resolve();

/**
 * Keeps `confirmation`, newest last, replacing one of the same repository and list. A damaged
 * file is replaced: all it held were confirmations, and losing one only asks again.
 */
export function recordIncludeConfirmation(root: ForkRoot, confirmation: IncludeConfirmationRecord): Promise<void> {
  const next = queue.then(async () => {
    const others = (await readConfirmations(root)).filter((c) => c.repository !== confirmation.repository || c.include_digest !== confirmation.include_digest);
    const file = includeConfirmationsFile(root);
    await root.ensureDir(path.dirname(file));
    await root.assertNoSymlinks(file);
    const confirmations = [...others, confirmation].slice(-MAX_INCLUDE_CONFIRMATIONS);
    await writePrivateJson(file, { schema_version: INCLUDE_CONFIRMATIONS_SCHEMA_VERSION, confirmations });
  });
  queue = next.catch(() => undefined);
  return next;
}

async function readConfirmations(root: ForkRoot): Promise<IncludeConfirmationRecord[]> {
  const file = includeConfirmationsFile(root);
  await root.assertNoSymlinks(file);
  const stored = await readStoredJson(file, IncludeConfirmationsFileSchema, UNTRUSTED);
  return stored.status === 'valid' ? stored.value.confirmations : [];
}
