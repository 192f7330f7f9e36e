import { z } from 'zod';
import { DigestSchema } from '../digest';
import { IsoTimeSchema } from '../iso-time';
import { SetupNetworkSchema } from './workflow';

/**
 * The operator confirms a workflow the repository itself provides (`.citadel/workflow.json`, used
 * when no workflow is named): a repository cloned from anywhere commits it, and its setup steps and
 * verifier are commands Citadel runs in every worktree, so the first fork that would use it, and the
 * first after the file changes, is refused until the operator has seen what it does and said yes.
 * A workflow named with `--workflow` (or edited in New Fork) is the operator's own choice and is not asked about.
 */

/** What the repository's workflow file would do, as the operator is shown it before confirming. */
export const RepositoryWorkflowSummarySchema = z.strictObject({
  /** Repository-relative (REPOSITORY_WORKFLOW_PATH). */
  path: z.string(),
  /** The file's own digest (sha256 of its bytes, the contract's `workflow.file_digest`): any change asks again. */
  digest: DigestSchema,
  setup: z.array(z.strictObject({ id: z.string(), argv: z.array(z.string()), network: SetupNetworkSchema })),
  /** The verifier's argv, or null when the file names none. */
  verifier: z.array(z.string()).nullable(),
  /** As the file lists them; empty means the agents may change anything, tests and the verifier's inputs included. */
  protected_paths: z.array(z.string()),
});
export type RepositoryWorkflowSummary = z.infer<typeof RepositoryWorkflowSummarySchema>;

/** The summary and whether this repository's operator confirmed this very file. */
export const WorkflowConfirmationSchema = RepositoryWorkflowSummarySchema.extend({ confirmed: z.boolean() });
export type WorkflowConfirmation = z.infer<typeof WorkflowConfirmationSchema>;

/** `setup: npm-ci: npm ci (network registries); verifier: npm test; protected paths: test/**` — as a refusal and the CLI print it. */
export function describeRepositoryWorkflow(summary: RepositoryWorkflowSummary): string {
  const setup = summary.setup.length === 0 ? 'none' : summary.setup.map((step) => `${step.id}: ${step.argv.join(' ')} (network ${step.network})`).join('; ');
  const verifier = summary.verifier === null ? 'none (only git diff --check)' : summary.verifier.join(' ');
  const paths = summary.protected_paths.length === 0 ? 'NONE (the agents may change the tests and everything the verifier reads)' : summary.protected_paths.join(', ');
  return `setup: ${setup}; verifier: ${verifier}; protected paths: ${paths}`;
}

export const WORKFLOW_CONFIRMATIONS_SCHEMA_VERSION = 1;
/** The newest kept; an older one dropped only means its file is asked about again. */
export const MAX_WORKFLOW_CONFIRMATIONS = 128;

/** One confirmation: a repository (its identity digest, main/landing/target-identity.ts) and the workflow file digest its operator confirmed. */
export const WorkflowConfirmationRecordSchema = z.strictObject({
  repository: DigestSchema,
  /** Where that repository was, for a person reading the file; the identity is `repository`. */
  repository_root: z.string(),
  workflow_digest: DigestSchema,
  confirmed_at: IsoTimeSchema,
});
export type WorkflowConfirmationRecord = z.infer<typeof WorkflowConfirmationRecordSchema>;

/** `<fork root>/settings/workflow-confirmations.json`. */
export const WorkflowConfirmationsFileSchema = z.strictObject({
  schema_version: z.literal(WORKFLOW_CONFIRMATIONS_SCHEMA_VERSION),
  confirmations: z.array(WorkflowConfirmationRecordSchema).max(MAX_WORKFLOW_CONFIRMATIONS),
});
export type WorkflowConfirmationsFile = z.infer<typeof WorkflowConfirmationsFileSchema>;
