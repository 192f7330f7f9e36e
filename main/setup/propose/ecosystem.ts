import type { ProposalFinding } from '../../../shared/fork/workflow-proposal';
import type { SetupStepFile } from '../../../shared/fork/workflow';

/** Long enough for a cold install of a large project; the operator shortens it if they like. */
export const SETUP_TIMEOUT_SECONDS = 1800;

/** A test command as a repository names it, and the file that names it. */
export interface ProposedVerifier {
  readonly command: string;
  readonly args: readonly string[];
  readonly evidence: string;
}

/** What one ecosystem's conventions say: its setup, its test command, the lockfiles setup installs from. */
export interface EcosystemReading {
  readonly ecosystem: string;
  readonly setup: readonly SetupStepFile[];
  readonly verifier: ProposedVerifier | null;
  readonly lockfiles: readonly string[];
  /** Setup findings (each with its evidence) and notes. */
  readonly findings: readonly ProposalFinding[];
}

/** A setup step that fetches packages: it may reach only its toolchain's registries. */
export function fetchStep(id: string, argv: readonly [string, ...string[]], evidence: string): { step: SetupStepFile; finding: ProposalFinding } {
  const [command, ...args] = argv;
  return {
    step: { id, command, args, timeout_seconds: SETUP_TIMEOUT_SECONDS, network: 'registries' },
    finding: { part: 'setup', proposal: argv.join(' '), evidence },
  };
}

export const note = (proposal: string, evidence: string): ProposalFinding => ({ part: 'note', proposal, evidence });
