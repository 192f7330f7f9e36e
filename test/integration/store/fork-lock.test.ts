import { existsSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { writeFileDurably, writeJsonDurably } from '../../../main/store/atomic-file';
import { withForkLock } from '../../../main/store/fork-lock';
import { Journal } from '../../../main/store/journal';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('withForkLock', () => {
  it('keeps a second holder out while the first works', async () => {
    const dir = tempDir('citadel-lock-');
    let release!: () => void;
    const first = withForkLock(dir, () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(100);
    await expect(withForkLock(dir, async () => 'second', { waitMs: 500 })).rejects.toMatchObject({ code: 'FORK_LOCKED' });
    release();
    await first;
    await expect(withForkLock(dir, async () => 'third')).resolves.toBe('third');
  });

  it('reports a lock lost mid-operation to its holder instead of crashing the process', async () => {
    const dir = tempDir('citadel-lock-');
    const outcome = withForkLock(dir, async () => {
      rmSync(path.join(dir, 'fork.lock'), { recursive: true, force: true });
      // Past the library's next update of the lock (every second), which notices the loss.
      await sleep(2500);
      return 'done';
    });
    await expect(outcome).rejects.toMatchObject({ code: 'FORK_LOCKED', message: expect.stringContaining('lost') });
  });
});

describe('a holder that lost the fork lock writes nothing more', () => {
  /** Ages the lock as a stalled holder (no refresh for 40 s) would leave it. */
  const ageLock = (dir: string) => {
    const old = new Date(Date.now() - 40_000);
    utimesSync(path.join(dir, 'fork.lock'), old, old);
  };

  it('after another process took the stale lock over: no journal append, no durable write', async () => {
    const dir = tempDir('citadel-lock-');
    const journalFile = path.join(dir, 'journal.jsonl');
    const record = path.join(dir, 'fork.json');
    let takeover: Promise<string> | undefined;
    let letSecondGo!: () => void;
    const first = withForkLock(dir, async () => {
      const journal = await Journal.open(journalFile);
      await journal.intent('runtime.launch', 'branch-a#1');
      ageLock(dir);
      // The second holder takes the stale lock, writes, and keeps holding it while the first tries.
      await new Promise<void>((secondHolds) => {
        takeover = withForkLock(dir, async () => {
          await writeJsonDurably(record, { holder: 'second' });
          secondHolds();
          await new Promise<void>((go) => (letSecondGo = go));
          // The first holder has ended: its lock directory, now this holder's, must still be there.
          expect(existsSync(path.join(dir, 'fork.lock'))).toBe(true);
          await writeJsonDurably(record, { holder: 'second', after: 'first ended' });
          return 'second';
        });
      });
      await expect(journal.result('runtime.launch', 'branch-a#1', 'done')).rejects.toMatchObject({ code: 'FORK_LOCKED', details: { reason: 'taken_over' } });
      await expect(writeJsonDurably(record, { holder: 'first' })).rejects.toMatchObject({ code: 'FORK_LOCKED', details: { reason: 'taken_over' } });
      return 'first';
    });
    await expect(first).rejects.toMatchObject({ code: 'FORK_LOCKED' });
    letSecondGo();
    await expect(takeover).resolves.toBe('second');
    expect(JSON.parse(readFileSync(record, 'utf8'))).toEqual({ holder: 'second', after: 'first ended' });
    expect(readFileSync(journalFile, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { phase: string }).phase)).toEqual(['intent']);
  });

  it('once its lock is old enough to be taken: refused before any waiting process can take it', async () => {
    const dir = tempDir('citadel-lock-');
    const file = path.join(dir, 'objective.txt');
    const outcome = withForkLock(dir, async () => {
      ageLock(dir);
      await writeFileDurably(file, 'late');
    });
    await expect(outcome).rejects.toMatchObject({ code: 'FORK_LOCKED', details: { reason: 'stale' } });
    expect(existsSync(file)).toBe(false);
  });

  it('after the library reported the lock compromised', async () => {
    const dir = tempDir('citadel-lock-');
    const file = path.join(dir, 'fork.json');
    const outcome = withForkLock(dir, async () => {
      rmSync(path.join(dir, 'fork.lock'), { recursive: true, force: true });
      await writeJsonDurably(file, {});
    });
    await expect(outcome).rejects.toMatchObject({ code: 'FORK_LOCKED', details: { reason: 'removed' } });
    expect(existsSync(file)).toBe(false);
  });

  it('writes outside any lock are not affected', async () => {
    const dir = tempDir('citadel-lock-');
    await withForkLock(dir, async () => undefined);
    await writeJsonDurably(path.join(dir, 'free.json'), {});
    expect(existsSync(path.join(dir, 'free.json'))).toBe(true);
  });
});
