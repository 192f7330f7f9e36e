import { CitadelError, type ErrorCode } from '../../shared/errors';

/** The file at the repository root that names the ignored files to copy (the convention Claude Code, Conductor and Codex share). */
export const WORKTREE_INCLUDE_FILE = '.worktreeinclude';

/** A `.worktreeinclude` refusal: typed, naming the file or pattern refused in its details. */
export const refuse = (code: ErrorCode, message: string, details: Record<string, string | string[]>): CitadelError =>
  new CitadelError(code, `${WORKTREE_INCLUDE_FILE}: ${message}`, { details });
