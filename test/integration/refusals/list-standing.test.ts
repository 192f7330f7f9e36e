/**
 * The fork list says what `fork status` says (issue 12, clean refusals): a fork whose stored
 * contract no longer verifies is listed blocked, never ready. The control is the same fork listed
 * before its contract was overwritten. The list is Mission Control's, through the CLI's own context.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { listForks } from '../../../main/orchestrator/list-forks';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('fork list and an unverifiable contract', () => {
  it('lists a ready fork as blocked once its contract.json no longer verifies', async () => {
    const h = new ForkHarness(tempDir('citadel-list-'));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const { doc } = await h.startJson(['--runtimes', 'claude,codex', '--containment', 'runtime-only']);
    expect(doc.state).toBe('ready');
    const ctx = await openOrchestratorContext({ env: h.env() });
    const listed = async () => (await listForks(ctx)).find((f) => f.fork_id === doc.fork_id);
    expect(await listed()).toMatchObject({ state: 'ready' });

    writeFileSync(path.join(h.forkDir(doc.fork_id), 'contract.json'), '{}');
    expect(await listed()).toMatchObject({ state: 'blocked' });
  });
});
