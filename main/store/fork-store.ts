import { readdir, rename } from 'node:fs/promises';
import type { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import { ForkIdSchema } from '../../shared/fork/ids';
import { ForkRecordSchema, type ForkRecord } from '../../shared/fork/fork-record';
import { fsyncDirectory, writePrivateJson } from './atomic-file';
import { crashPoint } from './crash-points';
import { forkFile, forkStagingDir, type ForkFileName } from './fork-layout';
import type { ForkRoot } from './fork-root';
import { Journal } from './journal';
import { readStoredJson, readStoredText, type ForkFile } from './read-stored-json';

/** Reads and writes one fork root's records; every read is validated, every write durable. */
export class ForkStore {
  constructor(readonly root: ForkRoot) {}

  forkDir(forkId: string): string {
    if (!ForkIdSchema.safeParse(forkId).success) {
      throw new CitadelError('FORK_NOT_FOUND', `"${forkId}" is not a fork id (fork- followed by 26 base32 characters)`);
    }
    return this.root.forkDir(forkId);
  }

  file(forkId: string, name: ForkFileName): string {
    return forkFile(this.forkDir(forkId), name);
  }

  /**
   * Creates a fork all at once: `write` fills a staging folder (its journal included), which is then
   * renamed into place. A crash part-way leaves only a `.creating-*` folder, never a half fork.
   */
  async createFork(forkId: string, write: (files: { path(name: ForkFileName): string; journal(): Promise<Journal> }) => Promise<void>): Promise<void> {
    const forks = await this.root.ensureDir(this.root.forksDir());
    const staging = await this.root.ensureDir(forkStagingDir(forks, ForkIdSchema.parse(forkId)));
    await write({ path: (name) => forkFile(staging, name), journal: () => Journal.open(forkFile(staging, 'journal')) });
    crashPoint('fork.create:before-publish');
    await rename(staging, this.forkDir(forkId));
    await fsyncDirectory(forks);
  }

  async openJournal(forkId: string): Promise<Journal> {
    return Journal.open(this.file(forkId, 'journal'));
  }

  async writeRecord(record: ForkRecord): Promise<void> {
    await writePrivateJson(this.file(record.fork_id, 'record'), ForkRecordSchema.parse(record));
  }

  async readRecord(forkId: string): Promise<ForkRecord> {
    return this.readJson(forkId, 'record', ForkRecordSchema);
  }

  async readText(forkId: string, name: ForkFileName): Promise<string> {
    return readStoredText(this.file(forkId, name), forkFileTrust(forkId, name));
  }

  /** Stored files are untrusted input: parse with the schema, never assume. */
  async readJson<S extends z.ZodType>(forkId: string, name: ForkFileName, schema: S): Promise<z.infer<S>> {
    return readStoredJson(this.file(forkId, name), schema, forkFileTrust(forkId, name));
  }

  /** Fork ids with a record on disk, oldest first (ULIDs sort by creation time). */
  async listForkIds(): Promise<string[]> {
    const entries = await readdir(this.root.forksDir(), { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory() && ForkIdSchema.safeParse(e.name).success).map((e) => e.name).sort();
  }
}

function forkFileTrust(forkId: string, name: ForkFileName): ForkFile {
  return { trust: 'record', missing: name === 'record' ? 'fork_not_found' : 'invalid', forkId };
}
