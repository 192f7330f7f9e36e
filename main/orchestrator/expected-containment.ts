import { z } from 'zod';
import { ContainmentSnapshotSchema, type ContainmentSnapshot } from '../git/containment';

/**
 * The pre-run containment snapshots of a fork (containment-before.json), one per branch attempt
 * (`attemptKey`), each of that branch's own repository: a retried attempt gets a fresh repository
 * and so a snapshot of its own, and no branch's check ever reads another branch's state.
 */
export const ExpectedContainmentSchema = z.record(z.string(), ContainmentSnapshotSchema);
export type ExpectedContainment = Readonly<Record<string, ContainmentSnapshot>>;
