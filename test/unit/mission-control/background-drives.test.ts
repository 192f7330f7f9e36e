import { describe, expect, it } from 'vitest';
import { createBackgroundDrives } from '../../../main/mission-control/background-drives';
import type { OrchestratorContext } from '../../../main/host/context';
import { CitadelError } from '../../../shared/errors';
import { ForkEventSchema, type ForkEvent } from '../../../shared/fork/events';

const FORK_ID = `fork-${'0'.repeat(26)}`;

/** Background drives only use the context's event sink. */
function drivesWithSink() {
  const events: ForkEvent[] = [];
  const logs: string[] = [];
  const ctx = { events: (event: ForkEvent) => void events.push(event) } as unknown as OrchestratorContext;
  return { drives: createBackgroundDrives(ctx, (line) => void logs.push(line)), events, logs };
}

describe('background drives', () => {
  it('emits a typed drive_failed event, with the code and message, when a drive throws', async () => {
    const { drives, events, logs } = drivesWithSink();
    drives.start(FORK_ID, () => Promise.reject(new CitadelError('FORK_LOCKED', 'another Citadel process is changing this fork; try again when it finishes')));
    expect(drives.running()).toEqual([FORK_ID]);
    await drives.drained();
    expect(drives.running()).toEqual([]);
    expect(events).toEqual([
      { type: 'drive_failed', fork_id: FORK_ID, code: 'FORK_LOCKED', message: 'another Citadel process is changing this fork; try again when it finishes' },
    ]);
    expect(ForkEventSchema.parse(events[0])).toEqual(events[0]);
    expect(logs).toEqual([expect.stringContaining(`citadel fork resume ${FORK_ID} continues it`)]);
  });

  it('withholds a message that names a local path or a secret, and never sends an unexpected error’s text', async () => {
    const { drives, events, logs } = drivesWithSink();
    drives.start(FORK_ID, () => Promise.reject(new CitadelError('GIT_FAILED', 'git worktree add failed in /home/alice/secret-project/repo')));
    drives.start(FORK_ID, () => Promise.reject(new TypeError('cannot read /etc/shadow with key sk-ant-0123456789abcdefghijKLMNOP')));
    await drives.drained();
    expect(events).toEqual([
      { type: 'drive_failed', fork_id: FORK_ID, code: 'GIT_FAILED', message: expect.not.stringMatching(/\/home|alice/) },
      { type: 'drive_failed', fork_id: FORK_ID, code: 'INTERNAL_ERROR', message: expect.not.stringMatching(/\/etc|sk-ant/) },
    ]);
    // The log, which stays on this machine, keeps the whole story.
    expect(logs.join('\n')).toContain('/home/alice/secret-project/repo');
  });

  it('emits nothing for a drive that ends normally, and tracks a fork driven twice until both runs end', async () => {
    const { drives, events } = drivesWithSink();
    let finishFirst: () => void = () => undefined;
    drives.start(FORK_ID, () => new Promise<void>((resolve) => (finishFirst = resolve)));
    drives.start(FORK_ID, () => Promise.resolve());
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(drives.running()).toEqual([FORK_ID]);
    const drained = drives.drained();
    finishFirst();
    await drained;
    expect(drives.running()).toEqual([]);
    expect(events).toEqual([]);
  });
});
