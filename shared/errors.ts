import { z } from 'zod';

/**
 * Every refusal or failure Citadel reports carries one of these stable codes (decisions D1).
 * Codes are contract: they never change meaning once released.
 */
export const ERROR_CODES = [
  'USAGE_ERROR',
  'INTERNAL_ERROR',
  'EXECUTOR_FILE_UNREADABLE',
  'EXECUTOR_FILE_INVALID',
  'RUNTIMES_INVALID',
  'EXECUTOR_SELECTION_CONFLICT',
  'EXECUTOR_SELECTION_MISSING',
  'RUNTIME_UNKNOWN',
  'RUNTIME_NOT_FOUND',
  'RUNTIME_SHIM_UNSUPPORTED',
  'PATH_ESCAPE',
  'FORK_NOT_FOUND',
  'FORK_LOCKED',
  'FORK_RECORD_INVALID',
  'FORK_STATE_CONFLICT',
  'BRANCH_NOT_FOUND',
  'WORKFLOW_FILE_UNREADABLE',
  /** The workflow file is not a valid workflow, or the repository's `.citadel/workflow.json` is not a regular file in a real folder of the repository (a symlinked `.citadel` or file, one whose realpath leaves the repository): never followed. */
  'WORKFLOW_FILE_INVALID',
  'WORKFLOW_INVALID',
  /** No workflow was named and the repository's own `.citadel/workflow.json` would run, but its operator has not confirmed this file (its digest) for this repository (issue 30); details carry what it runs. Nothing was created. */
  'WORKFLOW_CONFIRMATION_REQUIRED',
  /** `citadel init`: the repository shows no test command init recognises, so no workflow file (which needs a verifier) is proposed; nothing was written. */
  'WORKFLOW_NOT_RECOGNISED',
  /** `citadel init --write`: the repository already has `.citadel/workflow.json` (or a `.citadel` that is not a folder); it is replaced only with `--force`. */
  'WORKFLOW_FILE_EXISTS',
  'BUDGET_INVALID',
  'OBJECTIVE_INVALID',
  'SIGNING_KEY_MISMATCH',
  'SELECTION_REFUSED',
  'SELECTION_KEY_CONFLICT',
  /** The branch is not the recommendation or its verifier did not pass, and the operator did not acknowledge it (issue 14). */
  'SELECTION_AGAINST_EVIDENCE',
  /** selection.json is not the selection the journal recorded under its idempotency key (issue 12). */
  'SELECTION_RECORD_MISMATCH',
  /** selection.json's signature (selection.sig.json) does not verify under the fork's trusted signer, or is missing where the journal records a signed selection (issue 12). */
  'SELECTION_SIGNATURE_INVALID',
  'GIT_FAILED',
  'GIT_REF_INVALID',
  'GIT_OUTPUT_TOO_LARGE',
  'OUTPUT_FILE_UNWRITABLE',
  'REPOSITORY_INVALID',
  'REPOSITORY_DIRTY',
  'WORKTREE_CONFLICT',
  'WORKTREE_MISSING',
  'WORKTREE_OPEN_FAILED',
  'WORKTREE_UNTRUSTED',
  /** A branch of the operator's repository (e.g. `citadel`) is a leading part of `citadel/<fork>/<branch>`, which git then cannot create. */
  'BRANCH_NAMESPACE_CONFLICT',
  /** The fork's stored contract no longer matches the digest its record and receipts bind. */
  'CONTRACT_UNVERIFIABLE',
  'WORKTREE_CONTAINMENT_VIOLATION',
  'MERGE_CONFLICT',
  'MERGE_UP_TO_DATE',
  'LAUNCH_SPEC_INVALID',
  'RUN_STATUS_EXISTS',
  'RUN_STATUS_MISSING',
  'RUN_STATUS_UNREADABLE',
  'RUN_STATUS_INVALID',
  'SUPERVISOR_START_FAILED',
  'SUPERVISOR_START_UNCERTAIN',
  'KEYCHAIN_UNAVAILABLE',
  'KEY_STORE_CONFIG_INVALID',
  'KEY_STORE_INSECURE',
  'KEY_STORE_IO_FAILED',
  'SIGNING_KEY_CORRUPT',
  'ISSUER_ID_INVALID',
  'PUBLIC_KEY_INVALID',
  /** `citadel trust import`: the file is not a public key Citadel writes (a fork's signer.json, or 64 hex digits). */
  'TRUSTED_KEY_FILE_INVALID',
  /** `citadel trust remove`: no imported key has that fingerprint. */
  'TRUSTED_KEY_NOT_FOUND',
  /** The key store's list of imported keys does not parse: nothing it names is trusted, and it is never overwritten. */
  'TRUSTED_KEYS_CORRUPT',
  'LANDING_PRECONDITION_FAILED',
  'LANDING_TOKEN_MISMATCH',
  'LANDING_IN_DOUBT',
  /** The repository a landing or clean would act on is not the one the fork's contract binds. */
  'LANDING_TARGET_MISMATCH',
  'REPLAY_REDACTION_VIOLATION',
  'IPC_REQUEST_INVALID',
  'ARTIFACT_INVALID',
  'WEB_REQUEST_REFUSED',
  'RENDERER_NOT_BUILT',
  'IPC_SENDER_REFUSED',
  'EXECUTOR_PROFILE_INVALID',
  'ATTEMPTS_EXHAUSTED',
  'SANDBOX_UNAVAILABLE',
  /** `--containment runtime-only` was chosen for a runtime that does not offer it (its CLI obeys repository config that can redirect the operator's real key or approve host shell commands); details name each runtime and why. Nothing was created: run it contained. */
  'RUNTIME_ONLY_NOT_OFFERED',
  'EGRESS_PROVIDER_UNSUPPORTED',
  /** A workflow setup step (issue 13) exited non-zero, timed out or could not start: the branch's environment, not its agent. */
  'SETUP_FAILED',
  /** A setup step asks for `"network": "registries"` and its toolchain's configured registry cannot be allowed (unknown toolchain, not https on 443, unreadable settings), or the repository's committed settings (`.npmrc`, `.yarnrc.yml`, a requirements file, `.cargo/config.toml`, …) name a registry the operator's configuration does not. */
  'SETUP_REGISTRY_UNSUPPORTED',
  /** Citadel's package cache folder would be, hold or lie in the home, Citadel's home or the repository. */
  'SETUP_CACHE_UNSAFE',
  /** `.worktreeinclude` (issue 13) matches a tracked file, a symlink, a path outside the repository (or a hard link, which may be one: issue 27), too much, or cannot be read. */
  'WORKTREE_INCLUDE_TRACKED',
  'WORKTREE_INCLUDE_SYMLINK',
  'WORKTREE_INCLUDE_OUTSIDE',
  'WORKTREE_INCLUDE_TOO_LARGE',
  'WORKTREE_INCLUDE_INVALID',
  /** `.worktreeinclude` names ignored files the operator has not confirmed for this repository, or the list changed since (issue 27); details carry the files and the list digest. */
  'WORKTREE_INCLUDE_UNCONFIRMED',
  /** No block of CITADEL_PORT ports is free on this machine (issue 13). */
  'PORTS_UNAVAILABLE',
  /** `citadel fork attest` (issue 15): no branch has a verified receipt, so an attestation would prove nothing. */
  'ATTESTATION_NOTHING_VERIFIED',
  /** `citadel keys export`: the issuer has no signing key in the key store (export never creates one). */
  'SIGNING_KEY_NOT_FOUND',
  /** `citadel verify`, in the order checked: a file it was given cannot be read. */
  'ATTESTATION_FILE_UNREADABLE',
  /** A line is not a DSSE envelope (strict JSON, payload, payloadType, one signature), or the bundle is empty. */
  'ATTESTATION_MALFORMED',
  'ATTESTATION_PAYLOAD_TYPE_UNSUPPORTED',
  /** A keyid is not the given public key's digest, or the envelopes or their predicates name different keys. */
  'ATTESTATION_KEYID_MISMATCH',
  'ATTESTATION_SIGNATURE_INVALID',
  /** The payload is not an in-toto Statement v1 with a Citadel predicate of its schema. */
  'ATTESTATION_STATEMENT_INVALID',
  /** The envelopes are not one fork's bundle (another fork's envelope, one missing or repeated, subjects that disagree). */
  'ATTESTATION_BUNDLE_INCONSISTENT',
  'ATTESTATION_PROOF_MISMATCH',
  'ATTESTATION_REPLAY_MISMATCH',
  /** Everything else verified, but no public key was given: the signer is unverified. */
  'ATTESTATION_SIGNER_UNVERIFIED',
  /** `<fork root>/settings/profile-sets.json` cannot be read or does not match its schema (or a save would exceed the limit); it is never overwritten. */
  'PROFILE_SETS_INVALID',
  'PROFILE_SET_NOT_FOUND',
  /** A gateway's per-attempt CA (issue 28) cannot be made or loaded, or its key file is not a private 0600 file of this user. */
  'GATEWAY_CA_INVALID',
  /** A runtime that needs a provider credential has none on this machine (no key in the environment, no login); nothing was launched. */
  'RUNTIME_AUTH_MISSING',
  /** The host could not refresh or read the runtime's login for the provider gateway; the operator logs in again with the runtime's own CLI. */
  'CREDENTIAL_REFRESH_FAILED',
  /** `fork start --from` (issue 32): the parent's contract no longer matches its digest, or its objective not the one the contract binds; nothing was created. */
  'PARENT_CONTRACT_UNVERIFIED',
  /** `fork start --from`: the parent branch has no receipt that verifies here (not collected, missing, or failing a binding); nothing was created. */
  'PARENT_RECEIPT_UNVERIFIED',
  /**
   * `fork start --from`: the parent branch's result does not keep its fork's policy: its signed receipt shows a protected-path or symlink
   * check failed, or (its runtime failed before they ran) the same checks run on its commits fail. The agent's own changes to the tests
   * or workflow, or a link out of the tree, would become the next fork's base. Nothing was created.
   */
  'PARENT_RESULT_UNCHECKED',
  /**
   * `fork start --from`: a path the follow-up protects (its workflow's, `.citadel/**`) was changed by an agent somewhere along the chain
   * since its first fork's base, so the follow-up would be judged against agent-written files. Nothing was created.
   */
  'PARENT_PROTECTED_PATH_CHANGED',
  /** `fork start --from`: the parent branch's result commit is no longer in the target repository; nothing was created. */
  'PARENT_RESULT_MISSING',
  /** `fork start --from`: the repository named is not the parent's target (or the parent's recorded target is not the repository its contract binds); nothing was created. */
  'PARENT_TARGET_MISMATCH',
  /** `citadel verify --parent`: the child bundle carries no lineage, or the parent bundle does not attest the branch, receipt, contract and result commit the child's lineage names. */
  'ATTESTATION_PARENT_MISMATCH',
] as const;

export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** One rule a piece of input broke, located by its JSON path (e.g. `$.executors[1].model`). */
export const ViolationSchema = z.strictObject({
  path: z.string(),
  rule: z.string(),
  message: z.string(),
});
export type Violation = z.infer<typeof ViolationSchema>;

/** The typed error value that crosses every boundary (CLI JSON, IPC, web host). */
export const CitadelErrorDataSchema = z.strictObject({
  code: ErrorCodeSchema,
  message: z.string(),
  violations: z.array(ViolationSchema).optional(),
  details: z.record(z.string(), z.json()).optional(),
});
export type CitadelErrorData = z.infer<typeof CitadelErrorDataSchema>;

export class CitadelError extends Error {
  readonly code: ErrorCode;
  readonly violations: readonly Violation[] | undefined;
  readonly details: Record<string, z.core.util.JSONType> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    extra: { violations?: readonly Violation[]; details?: Record<string, z.core.util.JSONType>; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'CitadelError';
    this.code = code;
    this.violations = extra.violations;
    this.details = extra.details;
  }

  toData(): CitadelErrorData {
    return {
      code: this.code,
      message: this.message,
      ...(this.violations ? { violations: [...this.violations] } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export function isCitadelError(value: unknown): value is CitadelError {
  return value instanceof CitadelError;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: CitadelError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(error: CitadelError): Result<T> => ({ ok: false, error });
