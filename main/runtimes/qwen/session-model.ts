import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ModelIdSchema } from '../../../shared/executors/profile-schema';
import type { RuntimeWarning } from '../../../shared/runtime/telemetry';
import { readBoundedBytes } from '../../store/read-bounded-text';
import { isRecord } from '../output-reading/json-events';

/** The served model, or null with the warning that says why. */
export type SessionModel = { readonly model: string; readonly warning: null } | { readonly model: null; readonly warning: RuntimeWarning };

export interface SessionModelRequest {
  /** Absolute `$QWEN_HOME` of the run (see qwenHomeFrom). */
  readonly qwenHome: string;
  /** The run's session_id from its stdout; validated here as a UUID before it touches a path. */
  readonly sessionId: string;
  /** The assigned worktree (realpath): Qwen Code's project folder is named after it, and every record's `cwd` must equal it. */
  readonly worktree: string;
}

export const MAX_SESSION_FILE_BYTES = 16 * 1024 * 1024;

/** The `ui_telemetry` event Qwen Code writes for each answered model request, carrying the model the provider's answer named. */
const API_RESPONSE_EVENT = 'qwen-code.api_response';

/**
 * `$QWEN_HOME`, else `$HOME/.qwen`, from the environment the run was given; null when neither is an
 * absolute path (a relative one would depend on whichever cwd resolves it).
 */
export function qwenHomeFrom(env: Readonly<Record<string, string>>): string | null {
  const home = env.QWEN_HOME || (env.HOME ? path.join(env.HOME, '.qwen') : '');
  return path.isAbsolute(home) ? home : null;
}

/** Qwen Code 0.24.4's own project folder name: the project root with every character but [a-zA-Z0-9] replaced by `-` (its `sanitizeCwd`). */
export function qwenProjectFolder(worktree: string): string {
  return worktree.replace(/[^a-zA-Z0-9]/g, '-');
}

/**
 * The model the provider's answers named in one Qwen Code run, the only place it is kept: its session
 * file `$QWEN_HOME/projects/<project>/chats/<session_id>.jsonl`, whose `qwen-code.api_response`
 * telemetry events carry the served `model` (recordings/qwen/model_served_differs: stdout repeats the
 * requested OPENAI_MODEL, this file the one the server answered with). Every response must name the
 * same public-safe model. Bounded: one file of at most MAX_SESSION_FILE_BYTES; a symlink on the way is
 * refused. Never throws.
 */
export async function lookupSessionModel(request: SessionModelRequest, maxBytes = MAX_SESSION_FILE_BYTES): Promise<SessionModel> {
  const sessionId = z.uuid().safeParse(request.sessionId);
  if (!sessionId.success) return { model: null, warning: 'rollout_not_found' };
  const segments = ['projects', qwenProjectFolder(path.resolve(request.worktree)), 'chats'];
  try {
    for (let depth = 0; depth <= segments.length; depth += 1) {
      if (!(await isRealDirectory(path.join(request.qwenHome, ...segments.slice(0, depth))))) return { model: null, warning: 'rollout_not_found' };
    }
    const read = await readBoundedBytes(path.join(request.qwenHome, ...segments, `${sessionId.data}.jsonl`), maxBytes, 'refuse');
    if (!read.ok) return { model: null, warning: read.kind === 'unreadable' && read.reason === 'ENOENT' ? 'rollout_not_found' : 'rollout_unreadable' };
    return modelFromSession(read.bytes.toString('utf8'), path.resolve(request.worktree), sessionId.data);
  } catch {
    return { model: null, warning: 'rollout_unreadable' };
  }
}

/** Reads only each record's `sessionId` and `cwd`, and the api_response events' `model`. */
function modelFromSession(text: string, worktree: string, sessionId: string): SessionModel {
  const models = new Set<unknown>();
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const record = parseJsonRecord(line);
    // A final line without its newline may have been cut off when the runtime was stopped.
    if (record === null) {
      if (index === lines.length - 1) continue;
      return { model: null, warning: 'rollout_unreadable' };
    }
    if (record.sessionId !== sessionId) return { model: null, warning: 'rollout_unreadable' };
    if (record.cwd !== worktree) return { model: null, warning: 'rollout_cwd_mismatch' };
    const payload = isRecord(record.systemPayload) ? record.systemPayload : {};
    const event = isRecord(payload.uiEvent) ? payload.uiEvent : {};
    if (record.type === 'system' && record.subtype === 'ui_telemetry' && event['event.name'] === API_RESPONSE_EVENT) models.add(event.model);
  }
  const [model] = models;
  if (models.size > 1) return { model: null, warning: 'observed_model_ambiguous' };
  if (typeof model !== 'string' || model === '') return { model: null, warning: 'observed_model_missing' };
  if (!ModelIdSchema.safeParse(model).success) return { model: null, warning: 'observed_model_not_public_safe' };
  return { model, warning: null };
}

/** lstat: false when absent; anything but a real directory (a symlink included) is refused. */
async function isRealDirectory(dir: string): Promise<boolean> {
  try {
    const info = await lstat(dir);
    if (!info.isDirectory()) throw new Error('not a real directory');
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function parseJsonRecord(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}
