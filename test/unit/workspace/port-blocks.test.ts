/**
 * Port blocks (issue 13): each running branch's ten ports are free when leased, never shared with
 * another lease, given back, and taken back from ended branches. Real sockets on 127.0.0.1 and the
 * real lock directory; concurrency through Promise.all, whose leases contend for the same lock.
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { leasePortBlock, PORT_BLOCK_SIZE, portLeaseFiles, readPortLeases, releasePortBlocks, type PortLease } from '../../../main/workspace/port-blocks';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const FORK = 'fork-01jz0000000000000000000000';
const OTHER_FORK = 'fork-01jz0000000000000000000001';
const holder = (branch: string, attempt = 1, fork = FORK) => ({ fork_id: fork, branch_id: `branch-${branch}`, attempt });
const never = { isStale: async () => false };

/**
 * A private range per test, spread by the worker id, so parallel test files do not meet; below
 * Linux's ephemeral ports (32768 up), where another test's outgoing connection could take a port.
 */
function range(blocks: number): { first: number; last: number } {
  const worker = Number(process.env.VITEST_POOL_ID ?? '1');
  const first = 22000 + worker * 800 + Math.floor(Math.random() * 60) * 10;
  return { first, last: first + blocks * PORT_BLOCK_SIZE - 1 };
}

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server));
  });
}
const close = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('leasePortBlock', () => {
  it('gives concurrent holders distinct blocks and the same holder its block again', async () => {
    const home = tempDir('ports-');
    const r = range(12);
    const holders = Array.from({ length: 8 }, (_, i) => holder(`b${i}`));
    const blocks = await Promise.all(holders.map((h) => leasePortBlock(home, h, { ...never, range: r })));
    const firsts = blocks.map((b) => b.first);
    expect(new Set(firsts).size).toBe(8);
    for (const block of blocks) {
      expect(block.count).toBe(PORT_BLOCK_SIZE);
      expect((block.first - r.first) % PORT_BLOCK_SIZE).toBe(0);
    }
    expect(await leasePortBlock(home, holders[3]!, { ...never, range: r })).toEqual(blocks[3]);
    expect((await readPortLeases(home)).length).toBe(8);
  });

  it('skips a block one of whose ports is taken by someone else, and every port of a leased block binds', async () => {
    const home = tempDir('ports-');
    const r = range(3);
    const busy = await listen(r.first + 7);
    try {
      const block = await leasePortBlock(home, holder('a'), { ...never, range: r });
      expect(block.first).toBe(r.first + PORT_BLOCK_SIZE);
      const servers = await Promise.all(Array.from({ length: PORT_BLOCK_SIZE }, (_, i) => listen(block.first + i)));
      await Promise.all(servers.map(close));
    } finally {
      await close(busy);
    }
  });

  it('refuses with PORTS_UNAVAILABLE when every block is leased, and frees a block when its lease is released', async () => {
    const home = tempDir('ports-');
    const r = range(2);
    await leasePortBlock(home, holder('a'), { ...never, range: r });
    await leasePortBlock(home, holder('b'), { ...never, range: r });
    await expect(leasePortBlock(home, holder('c'), { ...never, range: r })).rejects.toMatchObject({ code: 'PORTS_UNAVAILABLE' });
    expect(await releasePortBlocks(home, holder('a'))).toBe(1);
    expect((await leasePortBlock(home, holder('c'), { ...never, range: r })).first).toBe(r.first);
  });

  it('takes back stale leases (ended branches) and keeps live ones', async () => {
    const home = tempDir('ports-');
    const r = range(2);
    await leasePortBlock(home, holder('ended'), { ...never, range: r });
    await leasePortBlock(home, holder('running'), { ...never, range: r });
    const asked: string[] = [];
    const isStale = async (lease: PortLease) => {
      asked.push(lease.branch_id);
      return lease.branch_id === 'branch-ended';
    };
    const block = await leasePortBlock(home, holder('new'), { isStale, range: r });
    expect(block.first).toBe(r.first);
    expect(asked.sort()).toEqual(['branch-ended', 'branch-running']);
    expect((await readPortLeases(home)).map((l) => l.branch_id).sort()).toEqual(['branch-new', 'branch-running']);
  });

  it('releases by attempt, by branch or by fork', async () => {
    const home = tempDir('ports-');
    const r = range(6);
    for (const h of [holder('a', 1), holder('a', 2), holder('b'), holder('c', 1, OTHER_FORK)]) await leasePortBlock(home, h, { ...never, range: r });
    expect(await releasePortBlocks(home, holder('a', 2))).toBe(1);
    expect(await releasePortBlocks(home, { fork_id: FORK, branch_id: 'branch-a' })).toBe(1);
    expect(await releasePortBlocks(home, { fork_id: FORK })).toBe(1);
    expect((await readPortLeases(home)).map((l) => l.fork_id)).toEqual([OTHER_FORK]);
  });

  it('refuses a damaged lease file rather than overwriting it', async () => {
    const home = tempDir('ports-');
    await leasePortBlock(home, holder('a'), { ...never, range: range(2) });
    writeFileSync(portLeaseFiles(home).leases, '{"schema_version":1,"leases":[{"oops":1}]}');
    await expect(leasePortBlock(home, holder('b'), { ...never, range: range(2) })).rejects.toMatchObject({ code: 'PORTS_UNAVAILABLE' });
  });
});
