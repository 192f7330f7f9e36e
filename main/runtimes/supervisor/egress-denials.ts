import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EgressDenialSchema, type EgressDenial } from '../../sandbox/egress/egress-denial';
import { PRIVATE_FILE_MODE } from '../../store/atomic-file';
import { EGRESS_DENIALS_FILE } from '../../store/fork-layout';

/** Enough to show what a run tried; a runtime looping on a refused host must not fill the disk. */
export const MAX_RECORDED_DENIALS = 1000;

/** The attempt's denials file: beside the run status, in the attempt folder. */
export function egressDenialsFile(statusFile: string): string {
  return path.join(path.dirname(statusFile), EGRESS_DENIALS_FILE);
}

/**
 * Records each refused connection as one JSON line, owner-only (a refused host name can say what the
 * agent was after). Synchronous appends: a denial is rare, and the line is whole before the next one.
 */
export function denialRecorder(file: string): (denial: EgressDenial) => void {
  let recorded = 0;
  return (denial) => {
    if (recorded >= MAX_RECORDED_DENIALS) return;
    recorded += 1;
    try {
      appendFileSync(file, `${JSON.stringify(denial)}\n`, { mode: PRIVATE_FILE_MODE });
    } catch {
      // A denial that cannot be recorded was still refused; the supervisor must outlive a full disk.
    }
  };
}

/** The denials a run recorded; none when it recorded none. A line that is not a denial is skipped, not trusted. */
export async function readEgressDenials(file: string): Promise<EgressDenial[]> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  return text.split('\n').flatMap((line) => {
    if (line === '') return [];
    try {
      const parsed = EgressDenialSchema.safeParse(JSON.parse(line));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}
