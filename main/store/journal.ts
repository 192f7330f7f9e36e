import { open, truncate } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import { PRIVATE_FILE_MODE } from './atomic-file';
import { crashPoint } from './crash-points';
import { storedFileMaxBytes } from './fork-layout';
import { assertLockStillHeld } from './held-lock';
import { readBoundedBytes } from './read-bounded-text';

/** Effects that go through the journal (decisions D11), each with whether a retry is safe. */
export const EFFECTS = {
  'fork.create': { repeatable: true },
  /** The fork's base object store (issue 11), keyed by fork id. */
  'repository.base': { repeatable: true },
  'worktree.create': { repeatable: true },
  /** A branch attempt's workflow setup (issue 13): its steps rerun from the first after a crash (install commands are idempotent). */
  'setup.run': { repeatable: true },
  'runtime.launch': { repeatable: false },
  'runtime.stop': { repeatable: true },
  'receipt.collect': { repeatable: true },
  /** A collected branch's commit fetched into the operator's repository as `citadel/<fork>/<branch>`. */
  'result.deliver': { repeatable: true },
  'branch.resolve': { repeatable: true },
  'fork.clean': { repeatable: true },
  'selection.record': { repeatable: true },
  'landing.merge': { repeatable: false },
} as const satisfies Record<string, { repeatable: boolean }>;
export type EffectName = keyof typeof EFFECTS;

const EffectNameSchema = z.enum(Object.keys(EFFECTS) as [EffectName, ...EffectName[]]);

export const JournalRecordSchema = z.strictObject({
  seq: z.number().int().nonnegative(),
  at: z.string(),
  effect: EffectNameSchema,
  key: z.string().min(1),
  phase: z.enum(['intent', 'result']),
  outcome: z.enum(['done', 'failed']).optional(),
  data: z.record(z.string(), z.json()).optional(),
});
export type JournalRecord = z.infer<typeof JournalRecordSchema>;

export type EffectStatus = 'not-started' | 'in-doubt' | 'done' | 'failed';

/**
 * Append-only, fsynced JSONL journal. An intent is durable before its effect runs and a result
 * after; recovery reads the pair to decide retry, skip or block.
 */
export class Journal {
  private appending: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: string,
    private readonly entries: JournalRecord[],
    private readonly now: () => Date,
  ) {}

  /**
   * Loads the journal. A torn final line (a crash mid-append, never acknowledged) is cut off;
   * any other malformed line means the journal is corrupt and nothing proceeds.
   */
  static async open(file: string, now: () => Date = () => new Date()): Promise<Journal> {
    const { text, complete } = await readComplete(file);
    if (!text.endsWith('\n') && text !== '') await truncate(file, Buffer.byteLength(complete.map((l) => `${l}\n`).join('')));
    return new Journal(file, parseRecords(file, complete), now);
  }

  /**
   * The acknowledged records, for a reader that does not own the journal (holds none of its locks):
   * a line still being appended is left alone, and nothing can be appended through this view.
   */
  static async read(file: string): Promise<Pick<Journal, 'records' | 'status' | 'resultOf'>> {
    const { complete } = await readComplete(file);
    return new Journal(file, parseRecords(file, complete), () => new Date());
  }

  records(): readonly JournalRecord[] {
    return this.entries;
  }

  status(effect: EffectName, key: string): EffectStatus {
    const mine = this.entries.filter((r) => r.effect === effect && r.key === key);
    const result = mine.findLast((r) => r.phase === 'result');
    if (result) return result.outcome === 'failed' ? 'failed' : 'done';
    return mine.length > 0 ? 'in-doubt' : 'not-started';
  }

  resultOf(effect: EffectName, key: string): JournalRecord | undefined {
    return this.entries.findLast((r) => r.effect === effect && r.key === key && r.phase === 'result');
  }

  async intent(effect: EffectName, key: string, data?: Record<string, z.core.util.JSONType>): Promise<void> {
    await this.append({ effect, key, phase: 'intent', ...(data ? { data } : {}) });
    crashPoint(`${effect}:after-intent`);
  }

  async result(effect: EffectName, key: string, outcome: 'done' | 'failed', data?: Record<string, z.core.util.JSONType>): Promise<void> {
    crashPoint(`${effect}:before-result`);
    await this.append({ effect, key, phase: 'result', outcome, ...(data ? { data } : {}) });
  }

  /** Appends are serialized, so concurrent effects (parallel launches) keep one gap-free sequence. */
  private append(record: Omit<JournalRecord, 'seq' | 'at'>): Promise<void> {
    const write = this.appending.then(async () => {
      assertLockStillHeld();
      const full: JournalRecord = { seq: this.entries.length, at: this.now().toISOString(), ...record };
      const handle = await open(this.file, 'a', PRIVATE_FILE_MODE);
      try {
        await handle.write(`${JSON.stringify(full)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      this.entries.push(full);
    });
    this.appending = write.catch(() => undefined);
    return write;
  }
}

/** A journal that is a symlink, FIFO, device or directory, or over its size limit, is refused unread. */
async function readComplete(file: string): Promise<{ text: string; complete: string[] }> {
  const read = await readBoundedBytes(file, storedFileMaxBytes(file), 'refuse');
  if (!read.ok && read.kind === 'unreadable' && read.reason === 'ENOENT') return { text: '', complete: [] };
  if (!read.ok) {
    const reason = read.kind === 'unreadable' ? read.reason : read.violation.rule;
    throw new CitadelError('FORK_RECORD_INVALID', `${path.basename(file)} cannot be read (${reason})`, { details: { file, reason } });
  }
  const text = read.bytes.toString('utf8');
  // Every acknowledged record ends with a newline, so whatever follows the last one is torn.
  return { text, complete: text.split('\n').slice(0, -1) };
}

function parseRecords(file: string, lines: readonly string[]): JournalRecord[] {
  return lines.map((line, index) => {
    const parsed = JournalRecordSchema.safeParse(safeJson(line));
    if (!parsed.success) throw new CitadelError('FORK_RECORD_INVALID', `journal line ${index + 1} is malformed`, { details: { file } });
    return parsed.data;
  });
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}
