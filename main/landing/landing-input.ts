import type { SelectionRecord } from '../../shared/fork/landing';
import type { OrchestratorContext } from '../host/context';

/** The caller's fresh cryptographic re-verification of a branch's receipt; a stored flag is never proof. */
export interface ReceiptVerdict {
  readonly ok: boolean;
  readonly reason: string | null;
}

/** What the caller (CLI, Mission Control) hands to landing; everything else is read under the fork lock. */
export interface LandingInput {
  readonly ctx: OrchestratorContext;
  /** The fork record itself is re-read under the lock, so a record read earlier by the caller cannot be stale. */
  readonly forkId: string;
  /** The target repository recorded in the fork's private request (the realpath of its work-tree top level). */
  readonly repo: string;
  readonly selection: SelectionRecord;
  /** The selection predates signed selections: it stands on the journal alone, and the selection_current check says so. */
  readonly selectionUnsigned?: boolean;
  readonly isReceiptVerified: (branchId: string) => Promise<ReceiptVerdict>;
}
