import { execFileSync } from 'node:child_process';
import { renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { jsonOf, runCliBounded, type BoundedRun } from './bounded-cli';

/**
 * A FIFO, or a symlink to /dev/zero, in place of each stored evidence file kind (issue 12): status,
 * compare and land answer within seconds, with a typed refusal or with that evidence not counted,
 * and the CLI's memory stays bounded. Before the fix each FIFO case hung (no writer ever opens it,
 * so a plain open waits for ever) and each /dev/zero case read hundreds of megabytes.
 */
const tempDir = useTempDirs();
const DEADLINE_MS = 20_000;
const MAX_RSS_BYTES = 300 * 1024 * 1024;

it('every stored evidence file kind: a FIFO or a /dev/zero symlink is refused at once, in bounded memory', { timeout: 300_000 }, async () => {
  const h = new ForkHarness(tempDir('citadel-bounded-'));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const forkId = doc.fork_id;
  const cli = (args: string[]): Promise<BoundedRun> => runCliBounded(args, { env: h.env(), cwd: h.base, timeoutMs: DEADLINE_MS, scratch: h.base });
  expect((await cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'it passed', '--json'])).code).toBe(0);
  const token = (jsonOf(await cli(['fork', 'land', forkId, '--json'])) as { token: string }).token;
  expect(token).toMatch(/^[0-9a-f]{12}$/);

  const files = {
    contract: path.join(h.forkDir(forkId), 'contract.json'),
    receipt: h.attemptFile(forkId, 'branch-claude', 'execution-receipt.json'),
    record: path.join(h.forkDir(forkId), 'fork.json'),
    journal: path.join(h.forkDir(forkId), 'journal.jsonl'),
  };
  const refusals: string[] = [];
  for (const [kind, file] of Object.entries(files)) {
    for (const plant of ['fifo', 'zero'] as const) {
      const saved = `${file}.saved`;
      renameSync(file, saved);
      if (plant === 'fifo') execFileSync('mkfifo', [file]);
      else symlinkSync('/dev/zero', file);
      try {
        for (const args of [['fork', 'status', forkId, '--json'], ['fork', 'compare', forkId, '--json'], ['fork', 'land', forkId, '--confirm', token, '--json']]) {
          const r = await cli(args);
          const label = `${kind} as ${plant}: ${args[1]}`;
          expect(r.timedOut, `${label} hung`).toBe(false);
          expect(r.peakRssBytes, label).not.toBeNull();
          expect(r.peakRssBytes ?? Infinity, label).toBeLessThan(MAX_RSS_BYTES);
          const out = jsonOf(r) as { error?: { code: string }; outcome?: string; landed?: boolean };
          // Never landed, never recommended on evidence that could not be read.
          expect(out.landed, label).toBeUndefined();
          if (kind !== 'journal') expect(out.outcome, label).not.toBe('recommend');
          if (kind === 'record' || args[1] === 'land') refusals.push(`${label}: ${out.error?.code ?? 'none'}`);
        }
      } finally {
        rmSync(file);
        renameSync(saved, file);
      }
    }
  }
  const expected = Object.keys(files).flatMap((kind) =>
    (['fifo', 'zero'] as const).flatMap((plant) => {
      if (kind === 'record') return ['status', 'compare', 'land'].map((command) => `record as ${plant}: ${command}: FORK_RECORD_INVALID`);
      // The contract and receipt are evidence: landing is refused on them; the journal is a record.
      return [`${kind} as ${plant}: land: ${kind === 'journal' ? 'FORK_RECORD_INVALID' : 'LANDING_PRECONDITION_FAILED'}`];
    }),
  );
  expect(refusals).toEqual(expected);
  // Restored, the fork is whole again: the same token still lands (nothing above changed it).
  const landed = jsonOf(await cli(['fork', 'land', forkId, '--confirm', token, '--json']));
  expect(landed).toMatchObject({ landed: true });
});
