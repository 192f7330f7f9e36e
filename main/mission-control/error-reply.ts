import type { z } from 'zod';
import { CitadelError, CitadelErrorDataSchema, isCitadelError, type CitadelErrorData } from '../../shared/errors';
import { zodViolations } from '../../shared/zod-violations';
import { describeError } from './describe-error';

export type ErrorReply = { ok: false; error: CitadelErrorData };

/**
 * A failure as it crosses to a shell: a CitadelError keeps its code, violations and details; any
 * other error becomes INTERNAL_ERROR with its message only (the stack goes to the log, not to the
 * page). The error value is checked against its schema like every other reply.
 */
export function errorReply(error: unknown, log: (line: string) => void): ErrorReply {
  if (isCitadelError(error)) {
    const data = CitadelErrorDataSchema.safeParse(error.toData());
    if (data.success) return { ok: false, error: data.data };
    log(`a ${error.code} error carried fields outside its schema; they were dropped`);
    return { ok: false, error: { code: error.code, message: error.message } };
  }
  log(`internal error: ${error instanceof Error && error.stack !== undefined ? error.stack : describeError(error)}`);
  return { ok: false, error: { code: 'INTERNAL_ERROR', message: `internal error: ${describeError(error)}` } };
}

/** A request its channel's schema refuses, every violation named by its path. */
export function requestInvalid(channel: string, issues: readonly z.core.$ZodIssue[], payload: unknown): CitadelError {
  return new CitadelError('IPC_REQUEST_INVALID', `the ${channel} request does not match its schema`, {
    violations: zodViolations(issues, [], payload),
    details: { channel },
  });
}
