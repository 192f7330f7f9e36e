import type { Stats } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ModelIdSchema } from '../../../shared/executors/profile-schema';
import type { RuntimeWarning } from '../../../shared/runtime/telemetry';
import { readBoundedBytes } from '../../store/read-bounded-text';
import { isRecord } from '../output-reading/json-events';

export interface RolloutLookupRequest {
  /** Absolute `$CODEX_HOME` of the run (see codexHomeFrom). */
  readonly codexHome: string;
  /** The run's `thread.started` thread_id; validated here as a UUID before it touches a path. */
  readonly threadId: string;
  /** The assigned worktree (realpath): the rollout's `turn_context.cwd` must equal it. */
  readonly worktree: string;
  /** Instants during the run, e.g. its start and end. A UUIDv7 thread id's own timestamp is always added. */
  readonly around?: readonly Date[];
}

export interface RolloutLimits {
  readonly maxEntriesPerFolder: number;
  readonly maxFileBytes: number;
}

export const DEFAULT_ROLLOUT_LIMITS: RolloutLimits = { maxEntriesPerFolder: 10_000, maxFileBytes: 16 * 1024 * 1024 };

/** The observed model, or null with the warning that says why. */
export type RolloutModel = { readonly model: string; readonly warning: null } | { readonly model: null; readonly warning: RuntimeWarning };

const HOUR_MS = 3_600_000;
/** Codex names date folders in local time; UTC-12..UTC+14 around an instant covers every zone. */
const ZONE_SPAN_MS = 14 * HOUR_MS;

/**
 * `$CODEX_HOME`, else `$HOME/.codex`, from the environment the run was given; null when neither is an
 * absolute path (a relative one would depend on whichever cwd resolves it).
 */
export function codexHomeFrom(env: Readonly<Record<string, string>>): string | null {
  const home = env.CODEX_HOME || (env.HOME ? path.join(env.HOME, '.codex') : '');
  return path.isAbsolute(home) ? home : null;
}

/**
 * Finds the model of one Codex run in `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<thread_id>.jsonl`
 * (decisions D5), the only place Codex names it. Bounded: only the date folders an instant of the run
 * can map to, at most `maxEntriesPerFolder` entries each, one file of at most `maxFileBytes`. A symlink
 * anywhere under `sessions/` is refused, exactly one file may match, and only `turn_context.payload`
 * `cwd` (must equal the worktree) and `model` (must be public-safe) are read. Never throws.
 */
export async function lookupRolloutModel(request: RolloutLookupRequest, limits: RolloutLimits = DEFAULT_ROLLOUT_LIMITS): Promise<RolloutModel> {
  const threadId = z.uuid().safeParse(request.threadId);
  if (!threadId.success) return { model: null, warning: 'rollout_not_found' };
  const folders = candidateDateFolders([...(request.around ?? []), ...uuidV7Instant(threadId.data)]);
  try {
    const sessions = path.join(request.codexHome, 'sessions');
    if (!(await isRealDirectory(sessions))) return { model: null, warning: 'rollout_not_found' };
    const suffix = `-${threadId.data}.jsonl`;
    const matches: string[] = [];
    for (const folder of folders) {
      if (!(await dateFolderExists(sessions, folder))) continue;
      matches.push(...(await matchingFiles(path.join(sessions, ...folder), suffix, limits.maxEntriesPerFolder)));
    }
    const [only] = matches;
    if (only === undefined) return { model: null, warning: 'rollout_not_found' };
    if (matches.length > 1) return { model: null, warning: 'observed_model_ambiguous' };
    return modelFromRollout(await readRegularFile(only, limits.maxFileBytes), request.worktree, threadId.data);
  } catch {
    return { model: null, warning: 'rollout_unreadable' };
  }
}

/** Reads only `turn_context.payload.{cwd,model}`; every turn must agree. */
function modelFromRollout(text: string, worktree: string, threadId: string): RolloutModel {
  const contexts: Record<string, unknown>[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const record = parseJsonRecord(line);
    // A final line without its newline may have been cut off when the runtime was stopped.
    if (record === null) {
      if (index === lines.length - 1) return;
      throw new Error('unparsable rollout line');
    }
    const payload = isRecord(record.payload) ? record.payload : {};
    if (record.type === 'session_meta' && payload.id !== threadId) throw new Error('rollout of another thread');
    if (record.type === 'turn_context') contexts.push(payload);
  });

  if (contexts.length === 0) return { model: null, warning: 'observed_model_missing' };
  if (contexts.some((context) => context.cwd !== path.resolve(worktree))) return { model: null, warning: 'rollout_cwd_mismatch' };
  const models = new Set(contexts.map((context) => context.model));
  const [model] = models;
  if (models.size > 1) return { model: null, warning: 'observed_model_ambiguous' };
  if (typeof model !== 'string' || model === '') return { model: null, warning: 'observed_model_missing' };
  if (!ModelIdSchema.safeParse(model).success) return { model: null, warning: 'observed_model_not_public_safe' };
  return { model, warning: null };
}

/** `YYYY/MM/DD` folders (UTC dates of instant ±14 h), each as its three path segments. */
function candidateDateFolders(instants: readonly Date[]): (readonly [string, string, string])[] {
  const days = new Set<string>();
  for (const instant of instants) {
    const ms = instant.getTime();
    if (!Number.isFinite(ms)) continue;
    // The window is 28 h wide, so its two ends and its middle hit every date it touches.
    for (const at of [ms - ZONE_SPAN_MS, ms, ms + ZONE_SPAN_MS]) days.add(new Date(at).toISOString().slice(0, 10));
  }
  return [...days].sort().map((day) => {
    const [year = '', month = '', date = ''] = day.split('-');
    return [year, month, date] as const;
  });
}

/** Codex thread ids are UUIDv7 (measured on 0.169.0): their first 48 bits are the creation time in ms. */
function uuidV7Instant(uuid: string): Date[] {
  if (uuid[14] !== '7') return [];
  return [new Date(Number.parseInt(uuid.slice(0, 8) + uuid.slice(9, 13), 16))];
}

/** lstat: false when absent; anything but a real directory (a symlink included) is refused. */
async function isRealDirectory(dir: string): Promise<boolean> {
  let info: Stats;
  try {
    info = await lstat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (!info.isDirectory()) throw new Error('not a real directory');
  return true;
}

/** Checks every component, so a symlinked year, month or day folder is refused too. */
async function dateFolderExists(sessions: string, segments: readonly string[]): Promise<boolean> {
  for (let depth = 1; depth <= segments.length; depth += 1) {
    if (!(await isRealDirectory(path.join(sessions, ...segments.slice(0, depth))))) return false;
  }
  return true;
}

async function matchingFiles(dir: string, suffix: string, maxEntries: number): Promise<string[]> {
  const found: string[] = [];
  let seen = 0;
  for await (const entry of await opendir(dir)) {
    seen += 1;
    if (seen > maxEntries) throw new Error('too many entries');
    if (!entry.name.startsWith('rollout-') || !entry.name.endsWith(suffix)) continue;
    if (!entry.isFile()) throw new Error('not a regular file');
    found.push(path.join(dir, entry.name));
  }
  return found;
}

/** The rollout, refused (thrown) when it is a symlink, not a regular file (a FIFO never blocks) or over `maxBytes`. */
async function readRegularFile(file: string, maxBytes: number): Promise<string> {
  const read = await readBoundedBytes(file, maxBytes, 'refuse');
  if (!read.ok) throw new Error('not a bounded regular file');
  return read.bytes.toString('utf8');
}

function parseJsonRecord(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}
