import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { STORED_FILE_MAX_BYTES } from '../../../main/store/fork-layout';
import { branch, FIXED_SUM, ForkHarness, parseDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { jsonOf, runCliBounded } from './bounded-cli';

/**
 * The runtime parsers read the end of each log, never the whole file (issue 12): a log whose start
 * is one line longer than the tail window still yields the result printed at its end. Before the
 * fix the log was read whole and its first 32 MiB parsed, so that line made both runs unparsable.
 */
const tempDir = useTempDirs();

it('a log longer than the tail window is parsed from its end, in bounded memory', { timeout: 300_000 }, async () => {
  const h = new ForkHarness(tempDir('citadel-bounded-logs-'));
  await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
  // Killed once the first collection has begun: no log has been parsed yet.
  const crashed = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--json'], {
    CITADEL_CRASH_AT: 'receipt.collect:after-intent',
  });
  expect(crashed.code, crashed.stderr).toBeNull();
  const [forkId = ''] = readdirSync(path.join(h.root, 'forks')).filter((name) => name.startsWith('fork-'));
  expect(forkId).toMatch(/^fork-[0-9a-z]{26}$/);

  // The other runtime may still be running (each run is collected as it exits): wait for both records.
  const exited = (branchId: string): boolean => {
    try {
      return (JSON.parse(readFileSync(h.attemptFile(forkId, branchId, 'run.json'), 'utf8')) as { phase: string }).phase === 'exited';
    } catch {
      return false;
    }
  };
  for (let waited = 0; !(exited('branch-claude') && exited('branch-codex')); waited += 100) {
    if (waited > 60_000) throw new Error('the runs never exited');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // One line of junk longer than the window, before what each runtime really printed.
  const junk = Buffer.alloc(STORED_FILE_MAX_BYTES.logTail + 1024 * 1024, 0x7a);
  for (const branchId of ['branch-claude', 'branch-codex']) {
    const log = h.attemptFile(forkId, branchId, 'stdout.log');
    const printed = readFileSync(log);
    expect(printed.length).toBeGreaterThan(0);
    writeFileSync(log, Buffer.concat([junk, Buffer.from('\n'), printed]));
  }

  const resumed = await runCliBounded(['fork', 'resume', forkId, '--json'], { env: h.env(), cwd: h.base, timeoutMs: 120_000, scratch: h.base });
  expect(resumed.timedOut).toBe(false);
  expect(resumed.peakRssBytes ?? Infinity).toBeLessThan(300 * 1024 * 1024);
  jsonOf(resumed);
  const status = parseDoc(await h.cli(['fork', 'status', forkId, '--json']));
  for (const id of ['branch-claude', 'branch-codex']) expect(branch(status, id), id).toMatchObject({ state: 'passed', failure_code: null });
});
