import { CitadelError } from '../../shared/errors';
import type { AnyExecutorFile } from '../../shared/executors/profile-schema';
import { parseAnyExecutorFileText } from '../../shared/executors/validate-executor-file';
import { MAX_JSON_FILE_BYTES } from '../../shared/json-text';
import { readBoundedText } from '../store/read-bounded-text';

/**
 * Reads and validates an executor file of schema 1 or 2: anything but a regular file (a FIFO,
 * device or directory, also behind a symlink) is EXECUTOR_FILE_UNREADABLE at once; never more than
 * the size limit plus one byte is read.
 */
export async function loadExecutorFile(file: string): Promise<AnyExecutorFile> {
  const read = await readBoundedText(file, MAX_JSON_FILE_BYTES, 'follow');
  if (!read.ok && read.kind === 'unreadable') {
    throw new CitadelError('EXECUTOR_FILE_UNREADABLE', `cannot read executor file ${file}: ${read.reason}`, { details: { reason: read.reason } });
  }
  if (!read.ok) throw new CitadelError('EXECUTOR_FILE_INVALID', 'the executor file is invalid (1 violation)', { violations: [read.violation] });
  const result = parseAnyExecutorFileText(read.text);
  if (!result.ok) throw result.error;
  return result.value;
}
