import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import { WireExchangeSchema, type WireExchange } from '../../shared/runtime/wire';
import { WIRE_FILE } from '../store/fork-layout';
import { readBoundedText } from '../store/read-bounded-text';

/**
 * Far above what a long run's gateway writes (a line is a few hundred bytes): a larger file was not
 * written by it, and is refused rather than read whole.
 */
export const MAX_WIRE_FILE_BYTES = 32 * 1024 * 1024;

/** The attempt's wire file: beside the run status, in the attempt folder. */
export function wireFile(statusFile: string): string {
  return path.join(path.dirname(statusFile), WIRE_FILE);
}

/**
 * What the gateway recorded of a run (issue 28); null when there is no file (a run without a
 * gateway, or one whose gateway saw no request). Read bounded, never through a link or from a FIFO;
 * a line that is not an exchange (a line cut by a crash mid-write) is skipped, not trusted.
 */
export async function readWireExchanges(file: string): Promise<WireExchange[] | null> {
  const read = await readBoundedText(file, MAX_WIRE_FILE_BYTES, 'refuse');
  if (!read.ok && read.kind === 'unreadable' && read.reason === 'ENOENT') return null;
  if (!read.ok) {
    const why = read.kind === 'unreadable' ? read.reason : read.violation.message;
    throw new CitadelError('RUN_STATUS_UNREADABLE', `the wire record of this run cannot be read: ${why}`);
  }
  return read.text.split('\n').flatMap((line) => {
    if (line === '') return [];
    try {
      const parsed = WireExchangeSchema.safeParse(JSON.parse(line));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}
