import { z } from 'zod';
import { DigestSchema } from '../digest';
import { ContainmentTemplateSchema, SandboxBackendIdSchema } from '../sandbox/containment-policy';
import { BranchIdSchema } from './ids';

/**
 * How a fork's executors are contained, as its contract binds it (issue 11). `contained`: every
 * runtime, setup step and verifier runs inside the named backend under these templates, whose
 * digests the receipts repeat. `runtime-only`: the operator explicitly chose to rely on each vendor
 * CLI's own permission mode alone; shown as an amber fact wherever the fork is shown.
 * A contract without this field predates containment and means `runtime-only`.
 */
export const ContractContainmentSchema = z.discriminatedUnion('mode', [
  z.strictObject({
    mode: z.literal('contained'),
    backend: SandboxBackendIdSchema,
    /**
     * What each branch's runtime sees, by branch id (roots by name, env names, egress): one per
     * branch, because each runtime has its own provider (egress) and its own environment names.
     */
    runtimes: z.record(BranchIdSchema, ContainmentTemplateSchema),
    /** What the workflow verifier (and every command Citadel runs on agent-written content) sees: no network. */
    verifier: ContainmentTemplateSchema,
    /** containmentDigest of each runtime template (by branch id) and of the verifier template. */
    runtime_policy_digests: z.record(BranchIdSchema, DigestSchema),
    verifier_policy_digest: DigestSchema,
  }),
  z.strictObject({ mode: z.literal('runtime-only') }),
]);
export type ContractContainment = z.infer<typeof ContractContainmentSchema>;

/** The containment one run actually ran under, recorded in its execution receipt. */
export const ReceiptContainmentSchema = z.discriminatedUnion('mode', [
  z.strictObject({
    mode: z.literal('contained'),
    backend: SandboxBackendIdSchema,
    /** The backend's own version string, e.g. `bubblewrap 0.8.0`. */
    backend_version: z.string().min(1).max(200),
    /** Equal to the contract's runtime_policy_digests[branch_id] (checked by verify-fork). */
    policy_digest: DigestSchema,
  }),
  z.strictObject({ mode: z.literal('runtime-only') }),
]);
export type ReceiptContainment = z.infer<typeof ReceiptContainmentSchema>;

/** The operator's choice at `fork start` (`--containment`, New Fork): `auto` = the platform's backend, or SANDBOX_UNAVAILABLE. */
export const ContainmentChoiceSchema = z.enum(['auto', 'runtime-only']);
export type ContainmentChoice = z.infer<typeof ContainmentChoiceSchema>;
