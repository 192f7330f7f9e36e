import { BUILTIN_STEPS, WorkflowFileV2Schema, type WorkflowFileV2 } from '../../../shared/fork/workflow';
import type { ProposalFinding, WorkflowProposal } from '../../../shared/fork/workflow-proposal';
import { ciCommands, type CiCommand } from './ci-commands';
import { note, type EcosystemReading, type ProposedVerifier } from './ecosystem';
import { readCargoPackage, readGoModule } from './go-cargo';
import { readNodeProject } from './node';
import { proposeProtectedPaths } from './protected-paths';
import { readPythonProject } from './python';
import { repositoryFiles } from './repository-files';
import { proposeWorktreeInclude } from './worktree-include-proposal';

/** The verifier runs a whole test suite: generous, as setup is. */
const VERIFIER_TIMEOUT_SECONDS = 1800;

/**
 * `citadel init`'s reading of a repository (its top level, `root`): the workflow its own
 * conventions imply, every part with the file that shows it. A workflow has one verifier: the
 * first ecosystem with a test command gives it (Node, Python, Go, Cargo), the others are noted.
 * The workflow is null when no test command was found. Reads only; writes nothing.
 */
export async function proposeWorkflowFor(root: string): Promise<WorkflowProposal> {
  const files = await repositoryFiles(root);
  const readings = [await readNodeProject(files), await readPythonProject(files), readGoModule(files), readCargoPackage(files)].filter(
    (reading): reading is EcosystemReading => reading !== null,
  );
  const findings: ProposalFinding[] = readings.flatMap((reading) => reading.findings);

  const [chosen = null, ...others] = readings.flatMap((reading) => (reading.verifier === null ? [] : [reading.verifier]));
  for (const other of others) findings.push(note(`${argvText(other)} is not the verifier: a workflow has one, and ${argvText(chosen as ProposedVerifier)} comes first`, other.evidence));
  const ci = await ciCommands(files);
  if (chosen !== null) findings.push({ part: 'verifier', proposal: argvText(chosen), evidence: withCi(chosen, ci) });
  for (const hint of ciTestHints(chosen, ci)) findings.push(hint);

  const protectedPaths = proposeProtectedPaths(files, readings.flatMap((reading) => reading.lockfiles));
  const include = await proposeWorktreeInclude(root);
  const workflow: WorkflowFileV2 | null =
    chosen === null
      ? null
      : WorkflowFileV2Schema.parse({
          schema_version: 2,
          steps: [...BUILTIN_STEPS],
          verifier: { command: chosen.command, args: [...chosen.args], timeout_seconds: VERIFIER_TIMEOUT_SECONDS },
          protected_paths: protectedPaths.paths,
          setup: readings.flatMap((reading) => reading.setup),
        });
  if (workflow !== null) {
    findings.push({ part: 'steps', proposal: BUILTIN_STEPS.map((step) => step.id).join(', '), evidence: "Citadel's built-in step: the objective is the instruction" });
    findings.push(...protectedPaths.findings);
  }
  findings.push(...include.findings);
  return { repo: root, workflow, worktree_include: include.lines, findings };
}

const argvText = (verifier: { command: string; args: readonly string[] }): string => [verifier.command, ...verifier.args].join(' ');

/** The verifier's evidence, with the CI workflows that run the same command. */
function withCi(verifier: ProposedVerifier, ci: readonly CiCommand[]): string {
  const text = argvText(verifier);
  const running = [...new Set(ci.filter((entry) => entry.command.includes(text)).map((entry) => entry.file))];
  return running.length === 0 ? verifier.evidence : `${verifier.evidence}; ${running.join(', ')} runs it too`;
}

/** Test commands the CI runs that are not the verifier: the operator may want one of them instead. */
function ciTestHints(verifier: ProposedVerifier | null, ci: readonly CiCommand[]): ProposalFinding[] {
  const text = verifier === null ? null : argvText(verifier);
  return ci
    .filter((entry) => /\btest\b|pytest/.test(entry.command) && (text === null || !entry.command.includes(text)))
    .slice(0, 5)
    .map((entry) => note(`the CI runs \`${entry.command}\`${verifier === null ? '' : '; the verifier can be changed to it'}`, entry.file));
}
