import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import { BranchIdSchema, ForkIdSchema } from '../../shared/fork/ids';
import { IsoTimeSchema } from '../../shared/iso-time';
import type { PortBlock } from '../../shared/fork/receipts';
import writeFileAtomic from 'write-file-atomic';
import { fsyncDirectory, PRIVATE_FILE_MODE } from '../store/atomic-file';
import { withDirLock } from '../store/fork-lock';
import { assertLockStillHeld } from '../store/held-lock';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';

/** Ports per running branch (issue 13): CITADEL_PORT is the first, the next nine are the branch's too. */
export const PORT_BLOCK_SIZE = 10;

/**
 * Where blocks are taken from: below Linux's ephemeral range (32768-60999, where the kernel picks
 * outgoing ports, which a bind test cannot reserve) and above the usual fixed dev-server ports.
 */
export const PORT_RANGE = { first: 20000, last: 31999 } as const;

/** The branch attempt a block is leased to. */
export interface PortHolder {
  readonly fork_id: string;
  readonly branch_id: string;
  readonly attempt: number;
}

const LeaseSchema = z.strictObject({
  fork_id: ForkIdSchema,
  branch_id: BranchIdSchema,
  attempt: z.number().int().min(1),
  first: z.number().int().min(1).max(65535),
  count: z.number().int().min(1),
  leased_at: IsoTimeSchema,
});
export type PortLease = z.infer<typeof LeaseSchema>;
const LeaseFileSchema = z.strictObject({ schema_version: z.literal(1), leases: z.array(LeaseSchema) });

export interface LeaseOptions {
  /** True when a lease's branch can no longer use it (its fork is gone, its attempt ended or was replaced): its block is taken back. */
  readonly isStale: (lease: PortLease) => Promise<boolean>;
  readonly range?: { readonly first: number; readonly last: number };
  readonly now?: () => Date;
}

/**
 * The leases of every running branch of every fork under one Citadel home live in one file, changed
 * only under its lock: two forks starting at once never get the same block.
 */
export function portLeaseFiles(home: string): { readonly dir: string; readonly leases: string; readonly lock: string } {
  const dir = path.join(home, 'ports');
  return { dir, leases: path.join(dir, 'leases.json'), lock: path.join(dir, 'leases.lock') };
}

/**
 * The block of `holder`: the one it already holds (a launch retried after a crash, or its verifier,
 * keeps the runtime's ports), else the first block of PORT_RANGE that no live lease covers and whose
 * ten ports all bind on 127.0.0.1 now. Stale leases are dropped on the way. PORTS_UNAVAILABLE when none is free.
 */
export async function leasePortBlock(home: string, holder: PortHolder, options: LeaseOptions): Promise<PortBlock> {
  const files = portLeaseFiles(home);
  await mkdir(files.dir, { recursive: true, mode: 0o700 });
  return withDirLock(files.lock, 'another Citadel process is assigning ports; try again when it finishes', async () => {
    const leases = await readLeases(files.leases);
    const own = leases.find((lease) => holds(lease, holder));
    if (own !== undefined) return { first: own.first, count: own.count };
    const live: PortLease[] = [];
    for (const lease of leases) if (!(await options.isStale(lease))) live.push(lease);
    const range = options.range ?? PORT_RANGE;
    for (let first = range.first; first + PORT_BLOCK_SIZE - 1 <= range.last; first += PORT_BLOCK_SIZE) {
      if (live.some((lease) => first < lease.first + lease.count && lease.first < first + PORT_BLOCK_SIZE)) continue;
      if (!(await allBindable(first, PORT_BLOCK_SIZE))) continue;
      const lease: PortLease = { ...holder, first, count: PORT_BLOCK_SIZE, leased_at: (options.now?.() ?? new Date()).toISOString() };
      await writeLeases(files.leases, [...live, lease]);
      return { first, count: PORT_BLOCK_SIZE };
    }
    // What stale leases were found stays dropped even when nothing is free.
    if (live.length !== leases.length) await writeLeases(files.leases, live);
    throw new CitadelError('PORTS_UNAVAILABLE', `no block of ${PORT_BLOCK_SIZE} free TCP ports in ${range.first}-${range.last} (${live.length} leased to running branches)`, {
      details: { leased: live.length, range: `${range.first}-${range.last}` },
    });
  });
}

/** Gives back the blocks of one branch attempt, of every attempt of a branch, or of a whole fork. */
export async function releasePortBlocks(home: string, match: { readonly fork_id: string; readonly branch_id?: string; readonly attempt?: number }): Promise<number> {
  const files = portLeaseFiles(home);
  await mkdir(files.dir, { recursive: true, mode: 0o700 });
  return withDirLock(files.lock, 'another Citadel process is assigning ports; try again when it finishes', async () => {
    const leases = await readLeases(files.leases);
    const kept = leases.filter(
      (lease) => !(lease.fork_id === match.fork_id && (match.branch_id === undefined || lease.branch_id === match.branch_id) && (match.attempt === undefined || lease.attempt === match.attempt)),
    );
    if (kept.length !== leases.length) await writeLeases(files.leases, kept);
    return leases.length - kept.length;
  });
}

/** The leases on record (for display and tests). */
export async function readPortLeases(home: string): Promise<PortLease[]> {
  return readLeases(portLeaseFiles(home).leases);
}

const holds = (lease: PortLease, holder: PortHolder): boolean => lease.fork_id === holder.fork_id && lease.branch_id === holder.branch_id && lease.attempt === holder.attempt;

async function readLeases(file: string): Promise<PortLease[]> {
  const stored = await readStoredJson(file, LeaseFileSchema, UNTRUSTED);
  if (stored.status === 'valid') return [...stored.value.leases];
  if (stored.status === 'unreadable' && stored.error.code === 'ENOENT') return [];
  // A damaged lease file is refused, never overwritten: it may be all that keeps two branches apart.
  throw new CitadelError('PORTS_UNAVAILABLE', `the port lease file ${file} cannot be read; remove it once no branch is running`, { details: { path: file } });
}

/**
 * temp + fsync + rename, owner-only, under the lease lock, like writePrivateJson but without its
 * crash point: the lease file is this machine's, not a fork's, so its write is no boundary of a
 * fork's journaled effects (a crash on either side converges: the attempt leases again, the same
 * block or, its old lease stale, another).
 */
async function writeLeases(file: string, leases: readonly PortLease[]): Promise<void> {
  assertLockStillHeld();
  await writeFileAtomic(file, `${JSON.stringify({ schema_version: 1, leases: [...leases].sort((a, b) => a.first - b.first) }, null, 2)}\n`, { fsync: true, mode: PRIVATE_FILE_MODE });
  await fsyncDirectory(path.dirname(file));
}

/** Binds every port of the block on 127.0.0.1 at once, then lets them go: free now, as far as anyone can know. */
async function allBindable(first: number, count: number): Promise<boolean> {
  const servers: net.Server[] = [];
  try {
    for (let port = first; port < first + count; port++) {
      const server = net.createServer();
      const bound = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(true));
      });
      if (!bound) return false;
      servers.push(server);
    }
    return true;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}
