import { readFile } from 'node:fs/promises';
import type { z } from 'zod';

/** A private checkpoint or fact file: its parsed value, or null when it is missing, not JSON or off-schema. */
export async function readJsonIfValid<S extends z.ZodType>(file: string, schema: S): Promise<z.infer<S> | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
