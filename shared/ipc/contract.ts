import { z } from 'zod';
import { AnyExecutorFileSchema, ExecutorProfileV2Schema } from '../executors/profile-schema';
import { ProfileSetNameSchema, ProfileSetSchema } from '../executors/profile-sets';
import { ExecutorSetDescriptionSchema } from '../executors/executor-set-description';
import { DigestSchema } from '../digest';
import { CleanabilitySchema } from '../fork/cleanability';
import { ComparisonSchema } from '../fork/compare';
import { ContainmentChoiceSchema, ReceiptContainmentSchema } from '../fork/containment-facts';
import { ForkContainmentSchema } from '../fork/containment-display';
import { MAX_ATTEMPTS_LIMIT, MAX_BUDGET_TOKENS } from '../fork/contract';
import { ForkEventSchema, PastForkEventSchema } from '../fork/events';
import { BranchIdSchema, CommitShaSchema, ForkIdSchema } from '../fork/ids';
import { ParentRefSchema } from '../fork/lineage';
import { ForkStatusSchema } from '../fork/fork-record';
import { ForkOverviewSchema } from '../fork/fork-overview';
import { LandingCheckSchema, LandingPlanSchema, SelectionRecordSchema } from '../fork/landing';
import { ModelProofSchema } from '../fork/model-proof';
import { SelectedAgainstEvidenceSchema } from '../fork/selection-evidence';
import { ResumabilitySchema } from '../fork/resumability';
import { RetryPlanSchema } from '../fork/retry-plan';
import { StartPreviewSchema } from '../fork/start-preview';
import { InlineWorkflowSchema } from '../fork/workflow';
import { WorkflowProposalSchema } from '../fork/workflow-proposal';
import { DiffSummarySchema, VerifierEvidenceSchema } from '../fork/receipts';
import { AttestationVerificationSchema } from '../publish/attestation';
import { ProofProjectionSchema } from '../publish/replay';
import { LocalProviderReadinessSchema, ReadinessReportSchema, RuntimeReadinessSchema } from '../runtime/readiness';
import { SandboxReadinessSchema } from '../sandbox/sandbox-readiness';
import { TelemetrySchema } from '../runtime/telemetry';
import { WireFactsSchema } from '../runtime/wire';
import { EgressRefusalSchema, MAX_SHOWN_REFUSALS } from '../fork/egress-refusals';
import { BranchOutputSchema, OutputLogIdSchema, OutputTextSchema } from '../fork/branch-output';
import { ListForksRequestSchema, ListForksResponseSchema } from './fork-list-channel';
import { defineChannels, type BridgeOf, type ReplyOf, type RequestOf, type ResponseOf } from './define-channels';

/**
 * The one IPC contract (ARCHITECTURE.md): each channel's name, strict request and response
 * schemas. The Electron main handlers, the preload bridge and the loopback web host are all
 * built from this table; none of them lists channels by hand.
 */

const Fork = z.strictObject({ fork_id: ForkIdSchema });

export { ForkListEntrySchema, type ForkListEntry } from './fork-list-channel';

/** How the New Fork form names its executors: legacy runtimes or validated profiles. */
export const ExecutorChoiceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('runtimes'), list: z.string().max(200) }),
  z.strictObject({ kind: z.literal('executors'), profiles: z.array(ExecutorProfileV2Schema).max(32) }),
]);

export const StartForkRequestSchema = z.strictObject({
  objective: z.string().min(1).max(64 * 1024),
  repo: z.string().min(1).max(4096),
  executors: ExecutorChoiceSchema,
  workflow_file: z.string().max(4096).nullable(),
  /**
   * The workflow as edited in New Fork (issue 13); with `workflow_file`, the file it was edited
   * from, which stays protected. Not walked here (z.json() recurses, so deep input threw): the
   * orchestrator parses it with the finite InlineWorkflowSchema and reports a bad one, of any
   * depth, as WORKFLOW_INVALID at the workflow field. The transport bounds its size.
   */
  workflow: z.unknown().optional(),
  budget_seconds: z.number().int().min(1).max(7 * 24 * 3600).nullable(),
  /** Attempts per branch (the contract's max_attempts); absent or null means the default, 1. */
  max_attempts: z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT).nullable().optional(),
  /** Issue 28: the token budget each branch's provider gateway enforces; absent or null means none. */
  budget_tokens: z.number().int().min(1).max(MAX_BUDGET_TOKENS).nullable().optional(),
  /** `auto` (the platform's OS sandbox, else SANDBOX_UNAVAILABLE) or the weaker `runtime-only`; absent or null means auto. */
  containment: ContainmentChoiceSchema.nullable().optional(),
  /** The digest of the `.worktreeinclude` list the operator ticked in the preview (issue 27); it confirms that list only. */
  include_confirmed: DigestSchema.nullable().optional(),
  /** The digest of the repository's own workflow file the operator ticked in the preview (issue 30); it confirms that file only. */
  workflow_confirmed: DigestSchema.nullable().optional(),
  /**
   * Issue 32: continue from this branch. The fork starts from its result commit, in its repository;
   * with no workflow (neither file nor document) it runs the parent's, and with no budget the parent's.
   */
  from: ParentRefSchema.nullable().optional(),
});
export type StartForkRequest = z.infer<typeof StartForkRequestSchema>;

/**
 * The preview takes the form as it is, empty fields and numbers out of range included: it reports
 * them at their fields instead of refusing the request.
 */
export const PreviewForkRequestSchema = StartForkRequestSchema.extend({
  objective: z.string().max(64 * 1024),
  repo: z.string().max(4096),
  budget_seconds: z.number().nullable(),
  max_attempts: z.number().nullable().optional(),
  budget_tokens: z.number().nullable().optional(),
});
export type PreviewForkRequest = z.infer<typeof PreviewForkRequestSchema>;

export const BranchDetailSchema = z.strictObject({
  fork_id: ForkIdSchema,
  branch_id: BranchIdSchema,
  runtime: z.string(),
  state: z.string(),
  failure_code: z.string().nullable(),
  receipt_verified: z.boolean(),
  verification_reasons: z.array(z.string()),
  model: ModelProofSchema,
  telemetry: TelemetrySchema.nullable(),
  verifier: VerifierEvidenceSchema.nullable(),
  diff_summary: DiffSummarySchema.nullable(),
  /** The branch's unified diff against the base, for the local viewer only (never exported). */
  diff_text: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  /** The verified receipt's containment; null when there is no verified receipt or it predates containment. */
  containment: ReceiptContainmentSchema.nullable(),
  /** Issue 28: the verified receipt's wire facts; absent without a gateway or a verified receipt. */
  wire: WireFactsSchema.optional(),
  /** Issue 28: what the current attempt's egress refused (recorded, unsigned); absent when nothing was. */
  egress_refusals: z.array(EgressRefusalSchema).max(MAX_SHOWN_REFUSALS).optional(),
  /** Issue 29: what Retry does now, for a blocked branch only; null when its contract cannot be read (Retry is refused then). */
  retry: RetryPlanSchema.nullable().optional(),
});
export type BranchDetail = z.infer<typeof BranchDetailSchema>;

export const SettingsSchema = z.strictObject({
  fork_root: z.string(),
  issuer_id: z.string(),
  /**
   * The issuer's signing key as read (never created) here: `present` with its fingerprint;
   * `not_created` until the first fork creates it; `unreadable` when the store or the key failed.
   */
  signing_key: z.enum(['present', 'not_created', 'unreadable']),
  public_key_fingerprint: z.string().nullable(),
  /** The issuer's public key (SPKI PEM), to give whoever verifies its attestations; null without a key. */
  public_key_pem: z.string().nullable(),
  key_store: z.enum(['os-keychain', 'file']),
  key_store_ready: z.boolean(),
  key_store_problem: z.string().nullable(),
  /** The runtimes this host has adapters for: Settings asks each one's readiness separately. */
  runtimes: z.array(z.string()),
});

const ProfileSetsReplySchema = z.strictObject({ sets: z.array(ProfileSetSchema) });

/** `citadel fork clean`: what was removed per branch; the evidence is never touched. */
export const CleanOutcomeSchema = z.strictObject({
  fork_id: ForkIdSchema,
  branches: z.array(z.strictObject({ branch_id: BranchIdSchema, worktree_removed: z.boolean(), branch_deleted: z.boolean() })),
});

export const OpenedArtifactSchema = z.strictObject({
  kind: z.enum(['citadel_replay', 'citadel_proof_report']),
  digest: z.string(),
  /** For a proof report: its embedded replay matches `replay_digest`. */
  digest_checked: z.boolean(),
  document: z.json(),
});

/**
 * Issue 32: what New Fork is pre-filled with to continue from a branch, after the same checks a
 * start makes (a branch nothing can continue from is refused here, with the start's code).
 */
export const FollowUpDraftSchema = z.strictObject({
  from: ParentRefSchema,
  /** The parent's target repository: the follow-up lands there. */
  repo: z.string(),
  executors: ExecutorChoiceSchema,
  /** The parent's objective's title (local, like every title). */
  parent_title: z.string().nullable(),
  parent_branch_state: z.enum(['passed', 'failed']),
  parent_failure_code: z.string().nullable(),
  parent_result_commit: CommitShaSchema,
});
export type FollowUpDraft = z.infer<typeof FollowUpDraftSchema>;

const CONTRACT = defineChannels('citadel', {
  listForks: { request: ListForksRequestSchema, response: ListForksResponseSchema },
  forkStatus: { request: Fork, response: ForkStatusSchema },
  /** The Fork page header: title, repository, base, selection, landing and worktree paths (local facts, never published). */
  forkOverview: { request: Fork, response: ForkOverviewSchema },
  /** The containment the fork's contract binds (immutable, so read once per view). */
  forkContainment: { request: Fork, response: ForkContainmentSchema },
  /** The fork's past events, rebuilt from its journal, record and receipts (issue 14): shown before the live ones. */
  forkTimeline: { request: Fork, response: z.array(PastForkEventSchema).max(20_000) },
  previewFork: { request: PreviewForkRequestSchema, response: StartPreviewSchema },
  startFork: { request: StartForkRequestSchema, response: ForkStatusSchema },
  followUpDraft: { request: ParentRefSchema, response: FollowUpDraftSchema },
  /**
   * The workflow the New Fork editor starts from: the named file's, else the repository's own
   * `.citadel/workflow.json` (`found_in_repository`), else the built-in one.
   */
  workflowDocument: {
    request: z.strictObject({ workflow_file: z.string().max(4096).nullable(), repo: z.string().max(4096).nullable().optional() }),
    response: z.strictObject({ source: z.enum(['builtin', 'file']), document: InlineWorkflowSchema, found_in_repository: z.string().nullable() }),
  },
  /**
   * `citadel init`'s proposal for the repository (New Fork's "Propose from the repository"): read
   * only, nothing written. A full path: a relative one would name a folder of Mission Control's own working directory.
   */
  proposeWorkflow: {
    request: z.strictObject({ repo: z.string().max(4096).startsWith('/', 'the full path of the repository (it starts with /)') }),
    response: WorkflowProposalSchema,
  },
  stopBranch: { request: z.strictObject({ fork_id: ForkIdSchema, branch_id: BranchIdSchema.nullable() }), response: ForkStatusSchema },
  resumability: { request: Fork, response: ResumabilitySchema },
  /** Continues the recorded request (launches what is pending); the rest streams as events. */
  resumeFork: { request: Fork, response: ForkStatusSchema },
  /** The operator's decision for a blocked branch; `retry` launches the fresh attempt at once, as the CLI does. */
  resolveBranch: {
    request: z.strictObject({ fork_id: ForkIdSchema, branch_id: BranchIdSchema, resolution: z.enum(['mark-failed', 'retry']) }),
    response: ForkStatusSchema,
  },
  cleanFork: { request: Fork, response: CleanOutcomeSchema },
  /** Whether cleanFork would act now, and why not (the orchestrator's rule; the view only shows it). */
  cleanability: { request: Fork, response: CleanabilitySchema },
  branchDetail: { request: z.strictObject({ fork_id: ForkIdSchema, branch_id: BranchIdSchema }), response: BranchDetailSchema },
  compareFork: { request: Fork, response: ComparisonSchema },
  selectBranch: {
    request: z.strictObject({
      fork_id: ForkIdSchema,
      branch_id: BranchIdSchema,
      reason: z.string().min(1).max(16 * 1024),
      actor: z.string().min(1).max(128),
      /** The operator's typed acknowledgement of selecting against the evidence (`--against-evidence`). */
      against_evidence: z.boolean().optional(),
    }),
    response: SelectionRecordSchema,
  },
  landingChecks: {
    request: Fork,
    // against_evidence: the selection's acknowledgement when it was made against the evidence, shown as a warning.
    // continues: a follow-up's parent branch, which the merge also brings unless it is in the target already (issue 32).
    response: z.strictObject({
      checks: z.array(LandingCheckSchema),
      token: z.string().nullable(),
      against_evidence: SelectedAgainstEvidenceSchema.nullable(),
      continues: LandingPlanSchema.shape.continues.unwrap().nullable(),
    }),
  },
  confirmLanding: { request: z.strictObject({ fork_id: ForkIdSchema, token: z.string().regex(/^[0-9a-f]{12}$/) }), response: z.strictObject({ landed: z.literal(true), merge_commit: z.string() }) },
  exportReplay: { request: Fork, response: z.strictObject({ text: z.string(), digest: z.string() }) },
  exportProof: { request: Fork, response: z.strictObject({ text: z.string(), digest: z.string() }) },
  proofProjection: { request: Fork, response: ProofProjectionSchema },
  openArtifact: { request: z.strictObject({ text: z.string().max(16 * 1024 * 1024) }), response: OpenedArtifactSchema },
  validateExecutors: { request: z.strictObject({ text: z.string().max(1024 * 1024) }), response: ExecutorSetDescriptionSchema },
  readiness: { request: z.strictObject({}), response: ReadinessReportSchema },
  settings: { request: z.strictObject({}), response: SettingsSchema },
  /** The readiness report's parts, one call each, so Settings fills each in as it answers. */
  runtimeReadiness: { request: z.strictObject({ runtime: z.string().min(1).max(64) }), response: RuntimeReadinessSchema },
  localProviderReadiness: { request: z.strictObject({}), response: z.strictObject({ providers: z.array(LocalProviderReadinessSchema) }) },
  sandboxReadiness: { request: z.strictObject({}), response: SandboxReadinessSchema },
  /** Saved executor profile sets (the fork root's settings); saving under an existing name replaces that set. */
  profileSets: { request: z.strictObject({}), response: ProfileSetsReplySchema },
  saveProfileSet: { request: z.strictObject({ name: ProfileSetNameSchema, file: AnyExecutorFileSchema }), response: ProfileSetsReplySchema },
  deleteProfileSet: { request: z.strictObject({ name: ProfileSetNameSchema }), response: ProfileSetsReplySchema },
  /** `citadel verify` of an opened attestation bundle, offline: nothing of the fork root is read. */
  verifyAttestation: {
    request: z.strictObject({ bundle: z.string().max(16 * 1024 * 1024), public_key_pem: z.string().max(16 * 1024).nullable() }),
    response: AttestationVerificationSchema,
  },
  /** Issue 29: the ends of what a branch's current attempt printed (runtime, setup, verifier), redacted; local state, never exported. */
  branchOutput: { request: z.strictObject({ fork_id: ForkIdSchema, branch_id: BranchIdSchema }), response: BranchOutputSchema },
  /** One of those logs in full, as far as OUTPUT_LOG_MAX_BYTES from its end ("Show all"). */
  branchLog: { request: z.strictObject({ fork_id: ForkIdSchema, branch_id: BranchIdSchema, which: OutputLogIdSchema }), response: OutputTextSchema },
});

export const IPC_CHANNELS = CONTRACT.table;
export const { names: CHANNEL_NAMES, isChannelName, replySchema, ipcName: ipcChannelName, parseRequest: parseChannelRequest } = CONTRACT;
export type ChannelName = (typeof CHANNEL_NAMES)[number];
export type ChannelRequest<C extends ChannelName> = RequestOf<typeof IPC_CHANNELS, C>;
export type ChannelResponse<C extends ChannelName> = ResponseOf<typeof IPC_CHANNELS, C>;
export type Reply<C extends ChannelName> = ReplyOf<typeof IPC_CHANNELS, C>;

/** The typed event stream (fork/branch state changes, runtime events, verifier steps). */
export const EVENT_CHANNEL = 'citadel:event';
export const IpcEventSchema = ForkEventSchema;

/** The bridge the preload exposes as `window.citadel`: one named function per channel, one subscription. */
export type CitadelBridge = BridgeOf<typeof IPC_CHANNELS> & {
  onEvent(listener: (event: z.infer<typeof ForkEventSchema>) => void): () => void;
};
