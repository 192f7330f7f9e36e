import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { CitadelError } from '../../shared/errors';

/**
 * A stored fact file that decides what Citadel reports (a selection, a landing): null when it was
 * never written, and FORK_RECORD_INVALID when it exists but is not valid, so a damaged record is
 * refused instead of silently read as "not selected" or "not landed".
 */
export async function readRecordFile<S extends z.ZodType>(file: string, schema: S): Promise<z.infer<S> | null> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new CitadelError('FORK_RECORD_INVALID', `${path.basename(file)} cannot be read (${error.code ?? 'unknown error'})`);
  });
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CitadelError('FORK_RECORD_INVALID', `${path.basename(file)} is not valid JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CitadelError('FORK_RECORD_INVALID', `${path.basename(file)} does not match its schema`);
  return parsed.data;
}
