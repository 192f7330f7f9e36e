import { open } from 'node:fs/promises';
import { CitadelError } from '../../shared/errors';
import { parseExecutorFileText } from '../../shared/executors/validate-executor-file';
import type { ExecutorFile } from '../../shared/executors/profile-schema';
import { MAX_JSON_FILE_BYTES } from '../../shared/json-text';

/** Reads and validates an executor file; never reads more than the size limit plus one byte. */
export async function loadExecutorFile(file: string): Promise<ExecutorFile> {
  const text = await readBoundedUtf8(file);
  const result = parseExecutorFileText(text);
  if (!result.ok) throw result.error;
  return result.value;
}

async function readBoundedUtf8(file: string): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw unreadable(file, error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw unreadable(file, new Error('not a regular file'));
    const buffer = Buffer.alloc(MAX_JSON_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_JSON_FILE_BYTES) {
      throw new CitadelError('EXECUTOR_FILE_INVALID', 'the executor file is invalid (1 violation)', {
        violations: [{ path: '$', rule: 'file_too_large', message: `the file is larger than ${MAX_JSON_FILE_BYTES} bytes` }],
      });
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
    } catch {
      throw new CitadelError('EXECUTOR_FILE_INVALID', 'the executor file is invalid (1 violation)', {
        violations: [{ path: '$', rule: 'not_utf8', message: 'the file is not valid UTF-8 text' }],
      });
    }
  } catch (error) {
    if (error instanceof CitadelError) throw error;
    throw unreadable(file, error);
  } finally {
    await handle.close();
  }
}

function unreadable(file: string, error: unknown): CitadelError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  return new CitadelError('EXECUTOR_FILE_UNREADABLE', `cannot read executor file ${file}: ${reason}`, { details: { reason } });
}
