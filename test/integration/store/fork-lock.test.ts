import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { writeFileDurably, writeJsonDurably } from '../../../main/store/atomic-file';
import { forkLockHolder, withForkLock } from '../../../main/store/fork-lock';
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

describe('who holds the fork lock (issue 29)', () => {
  it('names its holder and since when while it is held, nobody once released, and only the lock the note was written for', async () => {
    const dir = tempDir('citadel-lock-');
    expect(await forkLockHolder(dir)).toBeNull();
    const before = Date.now();
    let release!: () => void;
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const first = withForkLock(dir, async () => {
      held();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await holding;
    const holder = await forkLockHolder(dir);
    expect(holder?.pid).toBe(process.pid);
    expect(Date.parse(holder?.since ?? '')).toBeGreaterThanOrEqual(before);
    release();
    await first;
    expect(await forkLockHolder(dir)).toBeNull();
    expect(existsSync(path.join(dir, 'fork.lock.holder.json'))).toBe(false);

    // A note left by an earlier holder (one that was killed) says nothing about a lock taken since.
    writeFileSync(path.join(dir, 'fork.lock.holder.json'), `${JSON.stringify({ pid: 1, ino: 1, birthtime_ms: 1, since: '2026-01-01T00:00:00.000Z' })}\n`);
    mkdirSync(path.join(dir, 'fork.lock'));
    const unnamed = await forkLockHolder(dir);
    expect(unnamed?.pid).toBeNull();
    expect(Math.abs(Date.parse(unnamed?.since ?? '') - statSync(path.join(dir, 'fork.lock')).birthtimeMs)).toBeLessThan(1);
    // A lock nobody has refreshed for longer than it may go stale is held by nobody.
    ageLockDir(dir);
    expect(await forkLockHolder(dir)).toBeNull();
  });
});

/** Leaves the lock directory as a holder stalled for 40 s would. */
function ageLockDir(dir: string): void {
  const old = new Date(Date.now() - 40_000);
  utimesSync(path.join(dir, 'fork.lock'), old, old);
}
