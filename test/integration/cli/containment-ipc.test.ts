import { describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';
import { serviceOver, value } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

/** The New Fork form's containment choice reaches the contract through the IPC contract, as the CLI flag does. */
const tempDir = useTempDirs();

describe('containment through the Mission Control service', () => {
  it('starts a runtime-only fork when the request says so, and shows it in compare, branch detail, readiness and the proof summary', { timeout: 90_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-mc-containment-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
    const { service } = await serviceOver(h);
    const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: h.workflowFile, budget_seconds: 120 } as const;

    const started = value(await service.handle('startFork', { ...request, containment: 'runtime-only' }));
    await service.drained();
    const comparison = value(await service.handle('compareFork', { fork_id: started.fork_id }));
    expect(comparison.branches.map((b) => b.containment)).toEqual([{ mode: 'runtime-only' }, { mode: 'runtime-only' }]);
    const detail = value(await service.handle('branchDetail', { fork_id: started.fork_id, branch_id: 'branch-claude' }));
    expect(detail).toMatchObject({ receipt_verified: true, containment: { mode: 'runtime-only' } });
    expect(value(await service.handle('forkContainment', { fork_id: started.fork_id }))).toEqual({ mode: 'runtime-only' });
    const projection = value(await service.handle('proofProjection', { fork_id: started.fork_id }));
    expect(projection.containment).toEqual({ contained: 0, runtime_only: 2 });

    // A request without the field (an older client) means auto: contained here, where bwrap works.
    const auto = value(await service.handle('startFork', request));
    await service.drained();
    const contained = value(await service.handle('compareFork', { fork_id: auto.fork_id }));
    expect(contained.branches.map((b) => b.containment?.mode)).toEqual(['contained', 'contained']);
    expect(value(await service.handle('forkContainment', { fork_id: auto.fork_id }))).toMatchObject({ mode: 'contained', backend: 'bubblewrap' });
    expect(value(await service.handle('proofProjection', { fork_id: auto.fork_id })).containment).toEqual({ contained: 2, runtime_only: 0 });

    const readiness = value(await service.handle('readiness', {}));
    expect(readiness.sandbox).toMatchObject({ backend: 'bubblewrap', ready: true });
  });
});
