import { stat } from 'node:fs/promises';
import type { z } from 'zod';
import { canonicalJson } from '../../shared/canonical-json';
import { digestOf } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import { zodViolations } from '../../shared/zod-violations';
import { writeFileDurably } from '../store/atomic-file';
import { assertRedacted } from './redaction/secret-scan';

export interface PublicArtifact {
  readonly text: string;
  readonly digest: string;
}

/**
 * Fails closed before anything is written: the value must match its strict allowlist schema (an
 * extra field is a violation, named by path) and every string must pass the secret and path scan.
 * The text is deterministic: canonical key order, two-space indentation, one trailing newline.
 */
export async function renderPublic<S extends z.ZodType>(value: z.infer<S>, schema: S): Promise<PublicArtifact> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new CitadelError('REPLAY_REDACTION_VIOLATION', 'a field outside the public allowlist reached the export', {
      violations: zodViolations(parsed.error.issues, [], value),
    });
  }
  await assertRedacted(parsed.data);
  return { text: `${JSON.stringify(JSON.parse(canonicalJson(parsed.data)), null, 2)}\n`, digest: digestOf(parsed.data) };
}

/**
 * Writes the artifact to the operator's chosen file, replacing a regular file there. Anything else at
 * that path (a directory, a FIFO, a device) is refused before writing, as is a path that cannot be
 * written: a typed error, and no file is left half-written (temp + rename).
 */
export async function writePublic(artifact: PublicArtifact, file: string): Promise<void> {
  const existing = await stat(file).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(unwritable(file, error))));
  if (existing !== null && !existing.isFile()) throw unwritable(file, new Error('it exists and is not a regular file'));
  try {
    await writeFileDurably(file, artifact.text, { mode: 0o644 });
  } catch (error) {
    if (error instanceof CitadelError) throw error;
    throw unwritable(file, error);
  }
}

function unwritable(file: string, error: unknown): CitadelError {
  const why = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  return new CitadelError('OUTPUT_FILE_UNWRITABLE', `cannot write ${file}: ${why}`);
}
