/**
 * Issue 33: a bridge directory a crashed supervisor left behind is reclaimed the next time Citadel
 * makes one, only when it is Citadel's (mkdtemp's name, this user's, 0700) and no one's any more: no
 * bridge answers on its socket and the process that made it is gone.
 */
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBridgeSocketPath, reclaimStaleSocketDirs } from '../../../../main/sandbox/egress/socket-dir';
import { OWNER_FILE } from '../../../../main/sandbox/egress/socket-dir-owner';
import { processStartTime } from '../../../../main/runtimes/os-process/proc-stat';
import { useTempDirs } from '../../../support/temp-dir';

const tempDir = useTempDirs();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A process that is gone: it listened on `socket` (when given) and was killed, as a crashed supervisor is. */
async function deadProcess(socket?: string): Promise<number> {
  const script = socket === undefined ? 'process.kill(process.pid, "SIGKILL")' : `require('node:net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** A bridge directory as makeBridgeSocketPath leaves it, in `base`, made by a process now gone; with a left socket when `crashed`. */
async function plant(base: string, name: string, options: { crashed?: boolean; mode?: number } = {}): Promise<string> {
  const dir = path.join(base, `citadel-egress-${name}`);
  mkdirSync(dir, { mode: options.mode ?? 0o700 });
  const killed = await deadProcess(options.crashed ? path.join(dir, 'egress.sock') : undefined);
  writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify({ pid: killed, start_time: null }));
  return dir;
}

async function listen(socket: string): Promise<void> {
  const server = createServer((client) => client.destroy());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socket, resolve));
}

describe.skipIf(process.platform !== 'linux')('stale egress bridge directories', () => {
  it("reclaims this user's left by a crashed supervisor or a launch never served; keeps another user's, a live one, and anything not made by mkdtemp", async () => {
    const base = tempDir('citadel-reclaim-');
    const crashed = await plant(base, 'crash1', { crashed: true });
    const neverServed = await plant(base, 'never1');
    expect(readdirSync(crashed).sort(), 'the crashed supervisor left its socket').toEqual(['egress.sock', OWNER_FILE]);

    const otherUser = await plant(base, 'other1', { crashed: true });
    chownSync(otherUser, 65534, 65534);
    // Made by this process, which still runs: a launch whose supervisor is not listening yet.
    const live = await plant(base, 'alive1');
    writeFileSync(path.join(live, OWNER_FILE), JSON.stringify({ pid: process.pid, start_time: processStartTime(process.pid) }));
    const open = await plant(base, 'open01', { mode: 0o755, crashed: true });
    const notMkdtemp = await plant(base, 'too-long-name', { crashed: true });
    const making = path.join(base, 'citadel-egress-making');
    mkdirSync(making, { mode: 0o700 });

    await reclaimStaleSocketDirs(base);
    expect(existsSync(crashed), 'a crashed supervisor\'s directory').toBe(false);
    expect(existsSync(neverServed), 'a launch never served').toBe(false);
    for (const kept of [otherUser, live, open, notMkdtemp, making]) expect(existsSync(kept), kept).toBe(true);
    expect(readdirSync(otherUser).sort(), "another user's is not touched").toEqual(['egress.sock', OWNER_FILE]);
  });

  it('keeps a directory whose bridge still answers, even when the process that made it is gone', async () => {
    const base = tempDir('citadel-reclaim-');
    const dir = await plant(base, 'answer');
    await listen(path.join(dir, 'egress.sock'));
    await reclaimStaleSocketDirs(base);
    expect(readdirSync(dir).sort()).toEqual(['egress.sock', OWNER_FILE]);
  });

  it('makeBridgeSocketPath reclaims in the directory it makes the new one in, and records itself as the maker', async () => {
    const base = tempDir('citadel-reclaim-');
    const stale = await plant(base, 'stale1', { crashed: true });
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = base;
    try {
      const socket = await makeBridgeSocketPath();
      expect(path.dirname(path.dirname(socket))).toBe(base);
      expect(existsSync(stale)).toBe(false);
      expect(readdirSync(path.dirname(socket))).toEqual([OWNER_FILE]);
      // Its maker (this process) runs: a second launch keeps it.
      await makeBridgeSocketPath();
      expect(existsSync(path.dirname(socket))).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
