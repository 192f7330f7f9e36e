import { expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { jsonOf, runCliBounded } from './bounded-cli';

/**
 * A 300 MB file in a branch result (issue 12) must not take the CLI to 300 MB resident: the patch
 * it digests and the diffs it shows are streamed or cut, never held whole. The file is random, so
 * git cannot deflate its binary patch small: before the fix `fork start` buffered ~400 MB of patch
 * and copied it once more (well over the bound). The peak is the CLI process's own (git's is not).
 */
const tempDir = useTempDirs();
const SIZE = 300 * 1024 * 1024;
const MAX_RSS_BYTES = 300 * 1024 * 1024;

it('a 300 MB random file in a result: start, status and compare stay under 300 MB resident', { timeout: 600_000 }, async () => {
  const h = new ForkHarness(tempDir('citadel-bounded-large-'));
  await h.simulate({
    claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], commands: [['sh', '-c', `head -c ${SIZE} /dev/urandom > big.bin`]] },
    codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] },
  });
  const cli = (args: string[]) => runCliBounded(args, { env: h.env(), cwd: h.base, timeoutMs: 400_000, scratch: h.base });

  const start = await cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--budget-seconds', '300', '--json']);
  expect(start.timedOut).toBe(false);
  const forkId = (jsonOf(start) as { fork_id: string }).fork_id;
  // The file really is in the delivered result, whole.
  expect(h.gitIn(h.repo, 'cat-file', '-s', `citadel/${forkId}/branch-claude:big.bin`)).toBe(String(SIZE));

  const status = await cli(['fork', 'status', forkId, '--json']);
  const compare = await cli(['fork', 'compare', forkId, '--json']);
  expect(jsonOf(compare)).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude' });
  for (const [name, run] of [['start', start], ['status', status], ['compare', compare]] as const) {
    expect(run.peakRssBytes, name).not.toBeNull();
    expect(run.peakRssBytes ?? Infinity, `${name} peak RSS`).toBeLessThan(MAX_RSS_BYTES);
  }
});
