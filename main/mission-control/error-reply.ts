import { CitadelErrorDataSchema, isCitadelError, type CitadelErrorData } from '../../shared/errors';

type ErrorReply = { ok: false; error: CitadelErrorData };

/** One line for the operator's log: the code and message, never a stack trace. */
export function describeError(error: unknown): string {
  if (isCitadelError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

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
