import { rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { withForkLock } from '../../../main/store/fork-lock';
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
