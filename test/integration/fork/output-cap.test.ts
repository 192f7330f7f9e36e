/**
 * The supervisor's output cap end to end: a runtime that prints past it gets its log cut at the
 * cap, and the signed receipt records what was dropped (issue 12: `output_truncated`).
 */
import { chmodSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_OUTPUT_CAP_BYTES } from '../../../main/runtimes/supervisor/launch-spec';
import { branch, FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const OVER = 1000;

describe('a runtime that prints past the output cap', () => {
  it('keeps the cap in its log; its receipt records the dropped bytes, verifies, and compare warns', async () => {
    const h = new ForkHarness(tempDir('citadel-fork-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    // The simulated claude behind a wrapper that first floods stderr just past the cap.
    const claude = path.join(h.bin, 'claude');
    renameSync(claude, path.join(h.bin, 'claude-simulated'));
    writeFileSync(claude, `#!/bin/sh\nhead -c ${DEFAULT_OUTPUT_CAP_BYTES + OVER} /dev/zero >&2\nexec "$(dirname "$0")/claude-simulated" "$@"\n`);
    chmodSync(claude, 0o755);

    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'passed' });
    expect(statSync(h.attemptFile(doc.fork_id, 'branch-claude', 'stderr.log')).size).toBe(DEFAULT_OUTPUT_CAP_BYTES);
    const receipt = (id: string) => h.readJson<{ receipt: Record<string, unknown> }>(h.attemptFile(doc.fork_id, id, 'execution-receipt.json')).receipt;
    expect(receipt('branch-claude').output_truncated).toEqual({ cap_bytes: DEFAULT_OUTPUT_CAP_BYTES, stdout_dropped_bytes: 0, stderr_dropped_bytes: OVER });
    expect(receipt('branch-codex').output_truncated).toBeNull();

    const compare = await h.cli(['fork', 'compare', doc.fork_id]);
    expect(compare.code, compare.stderr).toBe(0);
    const claudeLines = compare.stdout.slice(compare.stdout.indexOf('branch-claude (claude)'), compare.stdout.indexOf('branch-codex (codex)'));
    expect(claudeLines).toContain('receipt verified');
    expect(claudeLines).toMatch(/warnings: .*output_truncated/);
    expect(compare.stdout.slice(compare.stdout.indexOf('branch-codex (codex)'))).not.toContain('output_truncated');
  });
});
