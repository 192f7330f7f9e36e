import { z } from 'zod';
import { DigestSchema } from '../digest';
import { ErrorCodeSchema } from '../errors';
import { CommitShaSchema, ForkIdSchema } from '../fork/ids';
import { PublicWireFactsSchema } from './public-wire';
import { ReplayLineageSchema, ReplaySchema } from './replay';

/**
 * Citadel's attestations (issue 15): in-toto Statement v1 in DSSE envelopes, one per line of a
 * `.intoto.jsonl` bundle. The envelope and statement shapes are the standard ones; the two
 * predicates are Citadel's own, named by versioned URIs (a new shape gets a new version, never a
 * changed meaning). Predicates are built from the replay's allowlist and pass its secret and path scan.
 */
export const DSSE_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** One branch with a verified receipt: what produced its result commit. */
export const BRANCH_PREDICATE_TYPE = 'urn:citadel:attestation:branch-result:v1';
/** Issue 28: v1 plus what the provider gateway saw; written for a branch that ran through one (v1 still verifies). */
export const BRANCH_PREDICATE_TYPE_V2 = 'urn:citadel:attestation:branch-result:v2';
/**
 * Issue 32: a follow-up's branch: v1, the wire facts when it ran through a gateway, the contract's
 * lineage, and the parent branch's result commit (its base revision) as a material. A fork without
 * lineage keeps v1 or v2.
 */
export const BRANCH_PREDICATE_TYPE_V3 = 'urn:citadel:attestation:branch-result:v3';
/** The fork's decision: comparison outcome, selection and landing. */
export const DECISION_PREDICATE_TYPE = 'urn:citadel:attestation:fork-decision:v1';
/** Issue 32: v1 whose contract carries the follow-up's lineage; a fork without lineage keeps v1. */
export const DECISION_PREDICATE_TYPE_V2 = 'urn:citadel:attestation:fork-decision:v2';

/** Standard base64 (DSSE's encoding of payload and signature), padded. */
const Base64Schema = z.string().regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'standard base64');

/**
 * A DSSE envelope as Citadel writes it: exactly one signature, by the fork's issuer key. The
 * payload is standard base64 too, checked where it is decoded (main/evidence/attestation): a regex over every
 * payload took a tenth of `citadel verify`'s time (measured).
 */
export const DsseEnvelopeSchema = z.strictObject({
  payload: z.string(),
  payloadType: z.string(),
  signatures: z.array(z.strictObject({ keyid: z.string(), sig: Base64Schema })).length(1),
});
export type DsseEnvelope = z.infer<typeof DsseEnvelopeSchema>;

/** A subject is a git commit, named by its `gitCommit` digest (in-toto's digest set). */
export const CommitSubjectSchema = z.strictObject({ name: z.string().min(1), digest: z.strictObject({ gitCommit: CommitShaSchema }) });
export type CommitSubject = z.infer<typeof CommitSubjectSchema>;

/**
 * The contract facts exactly as the replay shows them, with the signer key every envelope's keyid
 * names. v1 predicates predate lineage: a follow-up's facts, lineage included, are the later versions'.
 */
const ContractFactsSchema = ReplaySchema.shape.contract.omit({ lineage: true }).extend({ signer_public_key_digest: DigestSchema });
const LineageContractFactsSchema = ContractFactsSchema.extend({ lineage: ReplayLineageSchema });

/** The digests of the fork's public replay and proof report, as `citadel fork replay|proof` report them. */
const ArtifactDigestsSchema = z.strictObject({ replay_digest: DigestSchema, proof_digest: DigestSchema });

const ReplayBranch = ReplaySchema.shape.branches.element;

export const BranchPredicateSchema = z.strictObject({
  fork_id: ForkIdSchema,
  contract: ContractFactsSchema,
  branch: ReplayBranch.pick({
    branch_id: true,
    profile_id: true,
    runtime: true,
    provider: true,
    requested_model: true,
    observed_model: true,
    model_proof: true,
    executor_profile_digest: true,
    verifier: true,
    containment: true,
  }).extend({
    // From the signed receipt, not fork.json.
    attempt: z.number().int().min(1),
    status: z.enum(['passed', 'failed']),
    failure_code: z.string().nullable(),
    base_revision: CommitShaSchema,
    /** Null: the branch committed nothing, and its subject is the base revision. */
    result_commit: CommitShaSchema.nullable(),
    execution_receipt_digest: DigestSchema,
    /** Null for a schema 1 fork, which has no receipt wrapper. */
    fork_receipt_digest: DigestSchema.nullable(),
  }),
  artifacts: ArtifactDigestsSchema,
});
export type BranchPredicateV1 = z.infer<typeof BranchPredicateSchema>;

export const BranchPredicateV2Schema = BranchPredicateSchema.extend({
  branch: BranchPredicateSchema.shape.branch.extend({ wire: PublicWireFactsSchema }),
});
export type BranchPredicateV2 = z.infer<typeof BranchPredicateV2Schema>;

/**
 * `materials`: what the branch started from, in in-toto's resource-descriptor shape like the
 * subjects: the parent branch's result commit, named `citadel/<parent fork>/<parent branch>`. The
 * replay never names it; the attestation names commits by design.
 */
export const BranchPredicateV3Schema = BranchPredicateSchema.extend({
  contract: LineageContractFactsSchema,
  branch: BranchPredicateSchema.shape.branch.extend({ wire: PublicWireFactsSchema.optional() }),
  materials: z.tuple([CommitSubjectSchema]),
})
  // The material's name is the parent branch's git branch, nothing else: the public gate skips it in its secret scan, as it skips subjects.
  .refine((p) => p.materials[0].name === `citadel/${p.contract.lineage.parent_fork_id}/${p.contract.lineage.parent_branch_id}`, {
    path: ['materials', 0, 'name'],
    message: "the material is the parent branch's git branch, citadel/<parent fork>/<parent branch>",
  });
export type BranchPredicateV3 = z.infer<typeof BranchPredicateV3Schema>;
export type BranchPredicate = BranchPredicateV1 | BranchPredicateV2 | BranchPredicateV3;

export const DecisionPredicateSchema = z.strictObject({
  fork_id: ForkIdSchema,
  contract: ContractFactsSchema,
  /** Every branch of the signed set, attested or not, so a recipient sees what was left out. */
  branches: z.array(z.strictObject({ branch_id: z.string(), receipt_verified: z.boolean(), execution_receipt_digest: DigestSchema.nullable() })),
  comparison: ReplaySchema.shape.comparison,
  // v1's shape: the replay's later `against_evidence` mark is not part of it (a new field is a new vN).
  selection: ReplaySchema.shape.selection.omit({ against_evidence: true }),
  landing: ReplaySchema.shape.landing.extend({ merge_commit: CommitShaSchema.nullable() }),
  artifacts: ArtifactDigestsSchema,
});
export type DecisionPredicateV1 = z.infer<typeof DecisionPredicateSchema>;
export const DecisionPredicateV2Schema = DecisionPredicateSchema.extend({ contract: LineageContractFactsSchema });
export type DecisionPredicateV2 = z.infer<typeof DecisionPredicateV2Schema>;
export type DecisionPredicate = DecisionPredicateV1 | DecisionPredicateV2;

const statement = <T extends string, P extends z.ZodType>(predicateType: T, predicate: P) =>
  z.strictObject({
    _type: z.literal(IN_TOTO_STATEMENT_TYPE),
    subject: z.array(CommitSubjectSchema).min(1),
    predicateType: z.literal(predicateType),
    predicate,
  });

export const BranchStatementSchema = statement(BRANCH_PREDICATE_TYPE, BranchPredicateSchema);
export const BranchStatementV2Schema = statement(BRANCH_PREDICATE_TYPE_V2, BranchPredicateV2Schema);
export const BranchStatementV3Schema = statement(BRANCH_PREDICATE_TYPE_V3, BranchPredicateV3Schema);
export const DecisionStatementSchema = statement(DECISION_PREDICATE_TYPE, DecisionPredicateSchema);
export const DecisionStatementV2Schema = statement(DECISION_PREDICATE_TYPE_V2, DecisionPredicateV2Schema);
export const CitadelStatementSchema = z.discriminatedUnion('predicateType', [
  BranchStatementSchema,
  BranchStatementV2Schema,
  BranchStatementV3Schema,
  DecisionStatementSchema,
  DecisionStatementV2Schema,
]);
export type BranchStatementV3 = z.infer<typeof BranchStatementV3Schema>;
export type BranchStatement = z.infer<typeof BranchStatementSchema> | z.infer<typeof BranchStatementV2Schema> | BranchStatementV3;
export type DecisionStatement = z.infer<typeof DecisionStatementSchema> | z.infer<typeof DecisionStatementV2Schema>;
export type CitadelStatement = z.infer<typeof CitadelStatementSchema>;

/** A branch statement of any version. */
export const isBranchStatement = (s: CitadelStatement): s is BranchStatement => s.predicateType !== DECISION_PREDICATE_TYPE && s.predicateType !== DECISION_PREDICATE_TYPE_V2;

/** A follow-up's branch statement: the one version that names the parent's result commit. */
export const isLineageBranchStatement = (s: CitadelStatement): s is BranchStatementV3 => s.predicateType === BRANCH_PREDICATE_TYPE_V3;

/** Subject names: the fork branch's git branch for a result commit, and this for the landed merge commit. */
export const landedSubjectName = (forkId: string): string => `citadel/${forkId}/landed`;

/** `citadel verify --parent` (issue 32): the parent bundle verified, and it attests the branch, receipt, contract and result commit the child's lineage names. */
export const ParentLinkSchema = z.strictObject({
  linked: z.literal(true),
  fork_id: ForkIdSchema,
  branch_id: z.string(),
  /** The parent branch's result commit: the child's material, the parent's subject. */
  result_commit: CommitShaSchema,
  /** The key the parent bundle's signatures were checked with (the child's unless another was given). */
  key_id: z.string(),
});
export type ParentLink = z.infer<typeof ParentLinkSchema>;

/** What `citadel verify` reports: per envelope what it proves, and the first failure, if any. */
export const AttestationVerificationSchema = z.strictObject({
  verified: z.boolean(),
  key_id: z.string().nullable(),
  /** `verified` only when a public key was given and every signature holds with it. */
  signer: z.enum(['verified', 'unverified']),
  fork_id: z.string().nullable(),
  envelopes: z.array(
    z.strictObject({
      line: z.number().int().min(1),
      predicate_type: z.string(),
      subjects: z.array(CommitSubjectSchema),
      /** One line per proven fact, e.g. `verifier passed`. */
      facts: z.array(z.string()),
    }),
  ),
  /** `not_checked`: given, but an earlier failure stopped the verification first. */
  proof: z.enum(['matched', 'not_given', 'not_checked']),
  replay: z.enum(['matched', 'not_given', 'not_checked']),
  /**
   * Absent without `--parent`, so earlier reports keep their shape. `not_checked`: an earlier
   * failure stopped the verification first; `not_linked`: the failure is the parent's (its bundle, or the link).
   */
  parent: z.union([z.enum(['not_checked', 'not_linked']), ParentLinkSchema]).optional(),
  failure: z.strictObject({ code: ErrorCodeSchema, message: z.string(), line: z.number().int().min(1).nullable() }).nullable(),
});
export type AttestationVerification = z.infer<typeof AttestationVerificationSchema>;

/** `citadel keys export`: the issuer's public key as a recipient of its attestations needs it. */
export const IssuerPublicKeySchema = z.strictObject({
  issuer_id: z.string(),
  /** PEM of the SubjectPublicKeyInfo: what `citadel verify --public-key` and other verifiers read. */
  public_key_pem: z.string(),
  /** The keyid of every envelope this key signs (`signer_public_key_digest`). */
  public_key_digest: DigestSchema,
  fingerprint: z.string(),
});
export type IssuerPublicKey = z.infer<typeof IssuerPublicKeySchema>;
