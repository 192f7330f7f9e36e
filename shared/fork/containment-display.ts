import { z } from 'zod';
import { DigestSchema } from '../digest';
import { SandboxBackendIdSchema } from '../sandbox/containment-policy';
import type { ContractContainment, ReceiptContainment } from './containment-facts';
import { BranchIdSchema } from './ids';

/**
 * A contract's containment as it may be shown outside the fork root (replay, proof, `fork
 * status`): the backend and the policy digests, never the templates, whose root names and egress
 * hosts stay private.
 */
export const PublicContainmentSchema = z.discriminatedUnion('mode', [
  z.strictObject({
    mode: z.literal('contained'),
    backend: SandboxBackendIdSchema,
    /** containmentDigest of each branch's runtime template, by branch id. */
    runtime_policy_digests: z.record(BranchIdSchema, DigestSchema),
    verifier_policy_digest: DigestSchema,
  }),
  z.strictObject({ mode: z.literal('runtime-only') }),
]);
export type PublicContainment = z.infer<typeof PublicContainmentSchema>;

/**
 * What `fork status` and the Fork view say of a fork's contract: its public containment,
 * `predates` for a contract written before containment (it runs runtime-only), or `unverified`
 * when the stored contract does not match the record's digest.
 */
export const ForkContainmentSchema = z.union([PublicContainmentSchema, z.literal('predates'), z.literal('unverified')]);
export type ForkContainment = z.infer<typeof ForkContainmentSchema>;

export function publicContainment(containment: ContractContainment): PublicContainment {
  if (containment.mode === 'runtime-only') return { mode: 'runtime-only' };
  return {
    mode: 'contained',
    backend: containment.backend,
    runtime_policy_digests: containment.runtime_policy_digests,
    verifier_policy_digest: containment.verifier_policy_digest,
  };
}

/** One containment fact as every surface shows it: a line of text, amber when it is the weaker mode. */
export interface ContainmentShown {
  readonly text: string;
  /** runtime-only (chosen, or predating containment): only each vendor CLI's own permission mode held the executor. */
  readonly amber: boolean;
}

const CHOSEN_RUNTIME_ONLY = "runtime-only (chosen: no OS sandbox, only each vendor CLI's own permission mode)";
const PREDATES = 'runtime-only (predates containment)';

/**
 * How a branch's containment reads, from its verified receipt only (the CLI, compare, the Fork view
 * and the proof view share this wording). A verified receipt without the field predates
 * containment: it ran runtime-only, and says so.
 */
export function describeContainment(containment: ReceiptContainment | null, receiptVerified: boolean): ContainmentShown {
  if (!receiptVerified) return { text: 'unknown (no verified receipt)', amber: false };
  if (containment === null) return { text: PREDATES, amber: true };
  if (containment.mode === 'runtime-only') return { text: CHOSEN_RUNTIME_ONLY, amber: true };
  return { text: `${containment.backend} (${containment.backend_version}), policy ${containment.policy_digest}`, amber: false };
}

/** How a fork's contract reads; null is a contract that predates containment. */
export function describeForkContainment(containment: PublicContainment | null): ContainmentShown {
  if (containment === null) return { text: PREDATES, amber: true };
  if (containment.mode === 'runtime-only') return { text: CHOSEN_RUNTIME_ONLY, amber: true };
  return { text: `${containment.backend}, verifier policy ${containment.verifier_policy_digest}`, amber: false };
}
