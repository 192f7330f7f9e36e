import { isCitadelError } from '../../shared/errors';

/** One line for the operator's log: the code and message, never a stack trace. */
export function describeError(error: unknown): string {
  if (isCitadelError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
