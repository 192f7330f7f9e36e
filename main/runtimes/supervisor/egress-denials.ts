import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { CitadelError } from '../../../shared/errors';
import { EgressDenialSchema, type EgressDenial } from '../../sandbox/egress/egress-denial';
import { PRIVATE_FILE_MODE } from '../../store/atomic-file';
import { EGRESS_DENIALS_FILE } from '../../store/fork-layout';
import { readBoundedText } from '../../store/read-bounded-text';

/** Enough to show what a run tried; a runtime looping on a refused host must not fill the disk. */
export const MAX_RECORDED_DENIALS = 1000;
/** Past the cap, the first few of each reason are still written: a flood of one refusal must not hide another. */
const FIRST_OF_EACH_REASON = 20;
/** Far above MAX_RECORDED_DENIALS lines (and the few of each reason past them) of the recorder's own JSON: a larger file was not written by it. */
const MAX_DENIALS_FILE_BYTES = 4 * 1024 * 1024;

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
  const reasons = new Map<EgressDenial['reason'], number>();
  return (denial) => {
    const ofItsReason = reasons.get(denial.reason) ?? 0;
    reasons.set(denial.reason, ofItsReason + 1);
    if (recorded >= MAX_RECORDED_DENIALS && ofItsReason >= FIRST_OF_EACH_REASON) return;
    recorded += 1;
    try {
      appendFileSync(file, `${JSON.stringify(denial)}\n`, { mode: PRIVATE_FILE_MODE });
    } catch {
      // A denial that cannot be recorded was still refused; the supervisor must outlive a full disk.
    }
  };
}

/**
 * The denials a run recorded; none when it recorded none. Read bounded, never through a link or from
 * a FIFO. A line that is not a denial is skipped, not trusted.
 */
export async function readEgressDenials(file: string): Promise<EgressDenial[]> {
  const read = await readBoundedText(file, MAX_DENIALS_FILE_BYTES, 'refuse');
  if (!read.ok && read.kind === 'unreadable' && read.reason === 'ENOENT') return [];
  if (!read.ok) {
    const why = read.kind === 'unreadable' ? read.reason : read.violation.message;
    throw new CitadelError('RUN_STATUS_UNREADABLE', `the egress denials of this run cannot be read: ${why}`);
  }
  const text = read.text;
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
