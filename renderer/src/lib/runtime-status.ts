import type { Reply } from '../../../shared/ipc/contract';
import { explainError } from './explain';

/** Whether a runtime can run here, in the words New Fork shows beside it. */
export interface RuntimeStatus {
  readonly state: 'checking' | 'ready' | 'not-ready' | 'unknown';
  /** A short badge: "ready", "not ready", … */
  readonly label: string;
  /** The version when ready, the reason when not. */
  readonly detail: string;
}

/** A runtime's readiness probe answer (undefined while it has not answered) as words. */
export function runtimeStatus(reply: Reply<'runtimeReadiness'> | undefined): RuntimeStatus {
  if (reply === undefined) return { state: 'checking', label: 'checking…', detail: '' };
  if (!reply.ok) return { state: 'unknown', label: 'not checked', detail: explainError(reply.error) };
  const { executable } = reply.value;
  if (executable.found) return { state: 'ready', label: 'ready', detail: executable.version === null ? 'version unknown' : `version ${executable.version}` };
  return { state: 'not-ready', label: 'not ready', detail: executable.problem ?? `${executable.name} was not found` };
}

/** The badge tone of a status. */
export const STATUS_TONE: Readonly<Record<RuntimeStatus['state'], string>> = {
  checking: '',
  ready: 'tone-good',
  'not-ready': 'tone-bad',
  unknown: 'tone-warn',
};
