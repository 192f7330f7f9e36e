import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { REPO_ROOT } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';
import { call, send, type RawResponse } from '../web/http-client';

/**
 * One fork whose fork.json is a FIFO must not take the loopback web host down (issue 12). Before
 * the fix each read of it held a thread of libuv's pool (4 threads) for ever, so a few requests
 * for that fork left none for anything else: static pages and other forks hung too.
 */
const tempDir = useTempDirs();

/** The built CLI copied beside a renderer folder, as mission-control-cli.test.ts installs it. */
function installedCli(base: string): string {
  mkdirSync(path.join(base, 'cli'), { recursive: true });
  for (const file of ['citadel.mjs', 'supervisor.mjs']) copyFileSync(path.join(REPO_ROOT, 'out', 'cli', file), path.join(base, 'cli', file));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(base, 'node_modules'));
  mkdirSync(path.join(base, 'renderer'));
  writeFileSync(path.join(base, 'renderer', 'index.html'), '<!doctype html><title>Mission Control</title>\n');
  execFileSync('mkfifo', [path.join(base, 'renderer', 'pipe.js')]);
  return path.join(base, 'cli', 'citadel.mjs');
}

const within = <T>(ms: number, what: string, promise: Promise<T>): Promise<T> =>
  Promise.race([promise, new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms))]);

it('a FIFO as one fork.json: the host still serves static pages and the other forks', { timeout: 180_000 }, async () => {
  const h = new ForkHarness(tempDir('citadel-bounded-web-'));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  const forkIds: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    forkIds.push(doc.fork_id);
  }
  const [bad = '', good = ''] = forkIds;
  const record = path.join(h.forkDir(bad), 'fork.json');
  renameSync(record, `${record}.saved`);
  execFileSync('mkfifo', [record]);

  const child = spawn(process.execPath, [installedCli(path.join(h.base, 'installed')), 'mission-control', '--port', '0'], { env: h.env(), stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const url = await within(
      30_000,
      'mission-control start',
      new Promise<URL>((resolve) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          const match = /^Mission Control: (\S+)$/m.exec(stdout);
          if (match?.[1]) resolve(new URL(match[1]));
        });
      }),
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${stderr}`);
    });
    const port = Number(url.port);
    const token = url.searchParams.get('token') ?? '';
    const json = (response: RawResponse): unknown => JSON.parse(response.body);

    // More requests for the bad fork than the pool has threads, all at once.
    const badCalls = await within(
      15_000,
      'requests for the FIFO fork',
      Promise.all([...Array.from({ length: 8 }, () => call(port, token, 'forkStatus', { fork_id: bad })), call(port, token, 'compareFork', { fork_id: bad }), call(port, token, 'listForks', { state: null })]),
    );
    for (const response of badCalls.slice(0, -1)) expect(json(response)).toMatchObject({ ok: false, error: { code: 'FORK_RECORD_INVALID', details: { fork_id: bad, file: 'fork.json' } } });

    // A FIFO among the static files is not a file to serve: 404 at once, however often it is asked for.
    const pipes = await within(5_000, 'static FIFO', Promise.all(Array.from({ length: 6 }, () => send(port, { path: '/pipe.js' }))));
    for (const response of pipes) expect(response.status).toBe(404);
    expect(await within(5_000, 'static page', send(port, { path: `/?token=${token}` }))).toMatchObject({ status: 200, body: expect.stringContaining('Mission Control') });
    expect(json(await within(10_000, 'the other fork', call(port, token, 'forkStatus', { fork_id: good })))).toMatchObject({ ok: true, value: { fork_id: good, state: 'ready' } });
    expect(json(await within(20_000, 'compare the other fork', call(port, token, 'compareFork', { fork_id: good })))).toMatchObject({ ok: true, value: { outcome: 'recommend' } });
  } finally {
    child.kill('SIGKILL');
  }
});
