/**
 * fork.json's `state` is an unsigned record (issue 12, item 2): forging it back to `ready` or
 * `selected` on a landed fork must not re-open `fork select`. The journal, which records the
 * landing, decides. Control: a genuinely ready fork selects.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const env = { CITADEL_KEYSTORE: 'file' };

describe('a forged fork.json state on a landed fork', () => {
  it('does not re-open fork select; a genuinely ready fork selects', { timeout: 240_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-forged-state-select-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const start = async (): Promise<string> => {
      const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env);
      expect(run.code, run.stderr).toBe(0);
      expect(doc.state).toBe('ready');
      return doc.fork_id;
    };
    const landed = await start();
    const ready = await start();
    expect((await h.cli(['fork', 'select', landed, 'branch-claude', '--reason', 'passed', '--json'], env)).code).toBe(0);
    const plan = JSON.parse((await h.cli(['fork', 'land', landed, '--json'], env)).stdout) as { token: string };
    const land = await h.cli(['fork', 'land', landed, '--confirm', plan.token, '--json'], env);
    expect(land.code, land.stdout).toBe(0);

    const recordFile = path.join(h.forkDir(landed), 'fork.json');
    const selectionFile = path.join(h.forkDir(landed), 'selection.json');
    const selectionBefore = readFileSync(selectionFile, 'utf8');
    const decisionsBefore = readdirSync(path.join(h.forkDir(landed), 'selections'));
    for (const state of ['ready', 'selected']) {
      const record = JSON.parse(readFileSync(recordFile, 'utf8')) as { state: string };
      writeFileSync(recordFile, JSON.stringify({ ...record, state }));
      const refused = await h.cli(['fork', 'select', landed, 'branch-claude', '--reason', `again, as ${state}`, '--json'], env);
      expect(refused.code, refused.stdout).not.toBe(0);
      expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'FORK_STATE_CONFLICT', details: { landing: 'landed' } } });
      // Nothing was recorded.
      expect(readFileSync(selectionFile, 'utf8')).toBe(selectionBefore);
      expect(readdirSync(path.join(h.forkDir(landed), 'selections'))).toEqual(decisionsBefore);
    }

    const selected = await h.cli(['fork', 'select', ready, 'branch-claude', '--reason', 'passed', '--json'], env);
    expect(selected.code, selected.stdout).toBe(0);
    expect(JSON.parse(readFileSync(path.join(h.forkDir(ready), 'selection.json'), 'utf8'))).toMatchObject({ fork_id: ready, branch_id: 'branch-claude' });
  });
});
