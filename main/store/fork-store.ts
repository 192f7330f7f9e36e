import { readdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import { ForkIdSchema } from '../../shared/fork/ids';
import { ForkRecordSchema, type ForkRecord } from '../../shared/fork/fork-record';
import { fsyncDirectory, writeJsonDurably } from './atomic-file';
import { crashPoint } from './crash-points';
import type { ForkRoot } from './fork-root';
import { Journal } from './journal';

/** File names inside `<root>/forks/<fork_id>/` (private fork state, decisions D2). */
export const FORK_FILES = {
  record: 'fork.json',
  contract: 'contract.json',
  request: 'request.json',
  objective: 'objective.txt',
  signer: 'signer.json',
  journal: 'journal.jsonl',
} as const;

/** Reads and writes one fork root's records; every read is validated, every write durable. */
export class ForkStore {
  constructor(readonly root: ForkRoot) {}

  forkDir(forkId: string): string {
    if (!ForkIdSchema.safeParse(forkId).success) {
      throw new CitadelError('FORK_NOT_FOUND', `"${forkId}" is not a fork id (fork- followed by 26 base32 characters)`);
    }
    return this.root.forkDir(forkId);
  }

  file(forkId: string, name: keyof typeof FORK_FILES): string {
    return path.join(this.forkDir(forkId), FORK_FILES[name]);
  }

  /**
   * Creates a fork all at once: `write` fills a staging folder (its journal included), which is then
   * renamed into place. A crash part-way leaves only a `.creating-*` folder, never a half fork.
   */
  async createFork(forkId: string, write: (files: { path(name: keyof typeof FORK_FILES): string; journal(): Promise<Journal> }) => Promise<void>): Promise<void> {
    const forks = await this.root.ensureDir(this.root.forksDir());
    const staging = await this.root.ensureDir(path.join(forks, `.creating-${ForkIdSchema.parse(forkId)}`));
    await write({ path: (name) => path.join(staging, FORK_FILES[name]), journal: () => Journal.open(path.join(staging, FORK_FILES.journal)) });
    crashPoint('fork.create:before-publish');
    await rename(staging, this.forkDir(forkId));
    await fsyncDirectory(forks);
  }

  async openJournal(forkId: string): Promise<Journal> {
    return Journal.open(this.file(forkId, 'journal'));
  }

  async writeRecord(record: ForkRecord): Promise<void> {
    await writeJsonDurably(this.file(record.fork_id, 'record'), ForkRecordSchema.parse(record), { mode: 0o600 });
  }

  async readRecord(forkId: string): Promise<ForkRecord> {
    return this.readJson(forkId, 'record', ForkRecordSchema);
  }

  async readText(forkId: string, name: keyof typeof FORK_FILES): Promise<string> {
    return readFile(this.file(forkId, name), 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw this.readError(forkId, name, error);
    });
  }

  /** Stored files are untrusted input: parse with the schema, never assume. */
  async readJson<S extends z.ZodType>(forkId: string, name: keyof typeof FORK_FILES, schema: S): Promise<z.infer<S>> {
    const text = await this.readText(forkId, name);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new CitadelError('FORK_RECORD_INVALID', `${FORK_FILES[name]} of ${forkId} is not valid JSON`, { details: { fork_id: forkId, file: FORK_FILES[name] } });
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new CitadelError('FORK_RECORD_INVALID', `${FORK_FILES[name]} of ${forkId} does not match its schema`, { details: { fork_id: forkId, file: FORK_FILES[name] } });
    }
    return parsed.data;
  }

  /** Fork ids with a record on disk, oldest first (ULIDs sort by creation time). */
  async listForkIds(): Promise<string[]> {
    const entries = await readdir(this.root.forksDir(), { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory() && ForkIdSchema.safeParse(e.name).success).map((e) => e.name).sort();
  }

  private readError(forkId: string, name: keyof typeof FORK_FILES, error: NodeJS.ErrnoException): CitadelError {
    if (error.code === 'ENOENT' && name === 'record') return new CitadelError('FORK_NOT_FOUND', `no fork ${forkId}`, { details: { fork_id: forkId } });
    return new CitadelError('FORK_RECORD_INVALID', `cannot read ${FORK_FILES[name]} of ${forkId}: ${error.code ?? error.message}`, {
      details: { fork_id: forkId, file: FORK_FILES[name] },
    });
  }
}
