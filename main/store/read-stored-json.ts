import path from 'node:path';
import type { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import { storedFileMaxBytes } from './fork-layout';
import { readBoundedBytes } from './read-bounded-text';

/**
 * What reading one stored JSON file found; `unreadable` with code ENOENT is a file never written.
 * A symlink, FIFO, device or directory is `unreadable` too, as is a file over its kind's size limit
 * (read-bounded-text.ts names the codes): nothing is followed, waited on or read whole.
 */
export type StoredJson<T> =
  | { readonly status: 'unreadable'; readonly error: NodeJS.ErrnoException }
  | { readonly status: 'not_json'; readonly error: SyntaxError }
  | { readonly status: 'off_schema'; readonly error: z.ZodError }
  | { readonly status: 'valid'; readonly value: T };

/** Evidence under re-verification: nothing about it is assumed, every outcome goes back to the verifier. */
export interface Untrusted {
  readonly trust: 'untrusted';
}
/** A step's own checkpoint, schema-checked when it was written: anything but a valid file means the step is redone (null). */
export interface Checkpoint {
  readonly trust: 'checkpoint';
}
/** A decision record (a selection, a landing): null when never written, FORK_RECORD_INVALID when damaged, never read as "not decided". */
export interface DecisionRecord {
  readonly trust: 'record';
  readonly missing: 'null';
}
/**
 * A file every fork has: FORK_RECORD_INVALID when it is missing or damaged, except the fork record
 * itself, whose absence means there is no such fork (FORK_NOT_FOUND). Errors name the fork.
 */
export interface ForkFile {
  readonly trust: 'record';
  readonly missing: 'invalid' | 'fork_not_found';
  readonly forkId: string;
}
/** How far a stored file is trusted, which decides what a missing or damaged one means. */
export type Trust = Untrusted | Checkpoint | DecisionRecord | ForkFile;

export const UNTRUSTED: Untrusted = { trust: 'untrusted' };
export const CHECKPOINT: Checkpoint = { trust: 'checkpoint' };
export const DECISION_RECORD: DecisionRecord = { trust: 'record', missing: 'null' };

/**
 * The one reader of Citadel's stored JSON files: every file on disk is untrusted input, parsed with
 * its schema, and the trust level names what a file that is not valid means for its caller.
 */
export async function readStoredJson<S extends z.ZodType>(file: string, schema: S, trust: Untrusted): Promise<StoredJson<z.infer<S>>>;
export async function readStoredJson<S extends z.ZodType>(file: string, schema: S, trust: Checkpoint | DecisionRecord): Promise<z.infer<S> | null>;
export async function readStoredJson<S extends z.ZodType>(file: string, schema: S, trust: ForkFile): Promise<z.infer<S>>;
export async function readStoredJson<S extends z.ZodType>(file: string, schema: S, trust: Trust): Promise<StoredJson<z.infer<S>> | z.infer<S> | null> {
  const stored = await readJson(file, schema);
  if (trust.trust === 'untrusted') return stored;
  if (stored.status === 'valid') return stored.value;
  if (trust.trust === 'checkpoint') return null;
  if (stored.status !== 'unreadable') {
    throw invalid(file, trust, stored.status === 'not_json' ? 'is not valid JSON' : 'does not match its schema');
  }
  if (stored.error.code === 'ENOENT' && trust.missing === 'null') return null;
  throw unreadable(file, trust, stored.error);
}

/** A fork's stored text file (its objective), refused as `readStoredJson` refuses a fork file. */
export async function readStoredText(file: string, trust: ForkFile): Promise<string> {
  const read = await readStoredBytes(file);
  if (!read.ok) throw unreadable(file, trust, read.error);
  return read.bytes.toString('utf8');
}

/** The file's bytes, up to its kind's limit, from a regular file opened without following a symlink. */
async function readStoredBytes(file: string): Promise<{ ok: true; bytes: Buffer } | { ok: false; error: NodeJS.ErrnoException }> {
  const read = await readBoundedBytes(file, storedFileMaxBytes(file), 'refuse');
  if (read.ok) return read;
  const code = read.kind === 'unreadable' ? read.reason : read.violation.rule;
  return { ok: false, error: Object.assign(new Error(`${path.basename(file)}: ${code}`), { code }) };
}

async function readJson<S extends z.ZodType>(file: string, schema: S): Promise<StoredJson<z.infer<S>>> {
  const read = await readStoredBytes(file);
  if (!read.ok) return { status: 'unreadable', error: read.error };
  const text = read.bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { status: 'not_json', error: error as SyntaxError };
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? { status: 'valid', value: parsed.data } : { status: 'off_schema', error: parsed.error };
}

function unreadable(file: string, trust: DecisionRecord | ForkFile, error: NodeJS.ErrnoException): CitadelError {
  if (error.code === 'ENOENT' && trust.missing === 'fork_not_found') {
    return new CitadelError('FORK_NOT_FOUND', `no fork ${trust.forkId}`, { details: { fork_id: trust.forkId } });
  }
  const name = path.basename(file);
  if (trust.missing === 'null') return new CitadelError('FORK_RECORD_INVALID', `${name} cannot be read (${error.code ?? 'unknown error'})`);
  return new CitadelError('FORK_RECORD_INVALID', `cannot read ${name} of ${trust.forkId}: ${error.code ?? error.message}`, {
    details: { fork_id: trust.forkId, file: name },
  });
}

function invalid(file: string, trust: DecisionRecord | ForkFile, problem: string): CitadelError {
  const name = path.basename(file);
  if (trust.missing === 'null') return new CitadelError('FORK_RECORD_INVALID', `${name} ${problem}`);
  return new CitadelError('FORK_RECORD_INVALID', `${name} of ${trust.forkId} ${problem}`, { details: { fork_id: trust.forkId, file: name } });
}
