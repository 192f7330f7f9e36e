import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { createMissionControlService } from '../../../main/mission-control/service';
import { startWebHost } from '../../../main/web/web-host';
import { ForkEventSchema } from '../../../shared/fork/events';
import { replySchema, type Reply } from '../../../shared/ipc/contract';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { REPO_ROOT } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';
import { call, openEventStream } from './http-client';

const tempDir = useTempDirs();

describe('a fork over the loopback web host', () => {
  it('starts with one call and streams its events to the page until it is ready', { timeout: 90_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-web-fork-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const staticDir = path.join(h.base, 'renderer');
    mkdirSync(staticDir);
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html>\n');
    const ctx = await openOrchestratorContext({ env: h.env({ CITADEL_KEYSTORE: 'file' }), supervisorScript: path.join(REPO_ROOT, 'out', 'cli', 'supervisor.mjs') });
    const service = createMissionControlService(ctx, { log: () => undefined });
    const host = await startWebHost({ service, staticDir });
    try {
      const stream = await openEventStream(host.port, `/api/events?token=${host.token}`);
      await stream.until((text) => text.includes(': connected'));
      const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: h.workflowFile, budget_seconds: 120 };
      // replySchema's inferred type is the union over every channel; the parse itself is the channel's.
      const started = replySchema('startFork').parse(JSON.parse((await call(host.port, host.token, 'startFork', request)).body)) as Reply<'startFork'>;
      if (!started.ok) throw new Error(JSON.stringify(started.error));
      const forkId = started.value.fork_id;

      const text = await stream.until((seen) => seen.includes(`"type":"fork_state","fork_id":"${forkId}","state":"ready"`));
      const events = text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => ForkEventSchema.parse(JSON.parse(line.slice('data: '.length))));
      expect(events.filter((e) => e.type === 'runtime' && e.phase === 'exited').map((e) => e.type === 'runtime' && e.branch_id).sort()).toEqual(['branch-claude', 'branch-codex']);
      expect(events).toContainEqual({ type: 'branch_state', fork_id: forkId, branch_id: 'branch-claude', state: 'passed', failure_code: null });
      stream.close();
      await service.drained();

      const compared = replySchema('compareFork').parse(JSON.parse((await call(host.port, host.token, 'compareFork', { fork_id: forkId })).body));
      expect(compared).toMatchObject({ ok: true, value: { outcome: 'recommend', recommended_branch_id: 'branch-claude' } });
    } finally {
      await host.close();
    }
  });
});
