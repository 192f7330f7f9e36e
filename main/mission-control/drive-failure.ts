import { isCitadelError } from '../../shared/errors';
import type { ForkEvent } from '../../shared/fork/events';
import { CITADEL_RULES } from '../publish/redaction/citadel-rules';

const MAX_MESSAGE = 2000;

/**
 * The `drive_failed` event for a background drive that threw. Events reach every subscriber, so
 * the message is the typed error's own sentence only when the redaction rules find no local path
 * or secret-like value in it; anything else is replaced, and the full error goes to the log.
 */
export function driveFailedEvent(forkId: string, error: unknown): Extract<ForkEvent, { type: 'drive_failed' }> {
  if (!isCitadelError(error)) {
    return { type: 'drive_failed', fork_id: forkId, code: 'INTERNAL_ERROR', message: 'an unexpected error stopped the drive; the Mission Control log has its details' };
  }
  const safe = error.message.length <= MAX_MESSAGE && !CITADEL_RULES.some((rule) => rule.matches(error.message));
  return {
    type: 'drive_failed',
    fork_id: forkId,
    code: error.code,
    message: safe ? error.message : `${error.code} (the message names a local path or a secret-like value; the Mission Control log has it)`,
  };
}
