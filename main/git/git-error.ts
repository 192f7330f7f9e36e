import { CitadelError } from '../../shared/errors';

/** What one git process did, as far as it got. */
export interface GitOutcome {
  /** The git arguments, without the forced `-c` settings every process gets (see git-at.ts). */
  readonly args: readonly string[];
  /** null when git never reached an exit status: it could not start, timed out, or was refused by simple-git. */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

// Enough to diagnose a failure without copying a whole diff into an error record.
const MAX_OUTPUT_CHARS = 8_192;

const clip = (text: string): string =>
  text.length <= MAX_OUTPUT_CHARS ? text : `${text.slice(0, MAX_OUTPUT_CHARS)}… (${text.length - MAX_OUTPUT_CHARS} more characters)`;

/** A git command that failed. It carries the argv and the output, so nobody has to re-run git to learn why. */
export class GitError extends CitadelError {
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;

  constructor(outcome: GitOutcome, reason: string, cause?: unknown) {
    super('GIT_FAILED', `git ${outcome.args.join(' ')}: ${reason}`, {
      details: { args: [...outcome.args], exit_code: outcome.exitCode, stdout: clip(outcome.stdout), stderr: clip(outcome.stderr) },
      cause,
    });
    this.name = 'GitError';
    this.args = outcome.args;
    this.exitCode = outcome.exitCode;
    this.stdout = outcome.stdout;
    this.stderr = outcome.stderr;
  }
}
