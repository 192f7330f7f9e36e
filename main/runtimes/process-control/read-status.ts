import { CitadelError, type Violation } from '../../../shared/errors';
import { parseJsonText } from '../../../shared/json-text';
import { zodViolations } from '../../../shared/zod-violations';
import { readBoundedText } from '../../store/read-bounded-text';
import { RunStatusSchema, type RunStatus } from '../supervisor/run-status';

/** A record is a few hundred bytes; anything much larger is not one. */
const MAX_STATUS_BYTES = 64 * 1024;

/**
 * Reads the supervisor's status file. The supervisor replaces it by rename, so a reader never sees
 * a half-written record: a file that does not parse is reported as invalid, not waited on.
 */
export async function readStatus(statusFile: string): Promise<RunStatus> {
  const read = await readBoundedText(statusFile, MAX_STATUS_BYTES, 'refuse');
  if (!read.ok && read.kind === 'unreadable') {
    const code = read.reason === 'ENOENT' ? 'RUN_STATUS_MISSING' : 'RUN_STATUS_UNREADABLE';
    throw new CitadelError(code, `cannot read run status ${statusFile}: ${read.reason}`, { details: { reason: read.reason } });
  }
  if (!read.ok) throw invalid(statusFile, [read.violation]);
  const json = parseJsonText(read.text, { maxBytes: MAX_STATUS_BYTES });
  if (!json.ok) throw invalid(statusFile, [json.violation]);
  const parsed = RunStatusSchema.safeParse(json.value);
  if (!parsed.success) throw invalid(statusFile, zodViolations(parsed.error.issues, [], json.value));
  return parsed.data;
}

function invalid(statusFile: string, violations: readonly Violation[]): CitadelError {
  return new CitadelError('RUN_STATUS_INVALID', `run status ${statusFile} is not a valid status record`, { violations });
}
