import { monotonicFactory } from 'ulid';
import type { ForkId } from '../../shared/fork/ids';

// ulid: the reference ULID implementation; monotonic so ids made in one millisecond still sort.
const nextUlid = monotonicFactory();

/** `fork-` + a ULID in lowercase Crockford base32 (decisions D2). */
export function newForkId(now: number = Date.now()): ForkId {
  return `fork-${nextUlid(now).toLowerCase()}`;
}
