import type { Command } from 'commander';
import { CitadelError } from '../../../shared/errors';
import type { InitOutcome, ProposalFinding } from '../../../shared/fork/workflow-proposal';
import { REPOSITORY_WORKFLOW_PATH } from '../../../shared/fork/workflow-proposal';
import { printableLine as shown } from '../../../shared/terminal-controls';
import { initRepository } from '../../orchestrator';
import { displayArgv, printJson, type Io } from '../io/output';

interface InitOptions {
  repo: string;
  write?: boolean;
  force?: boolean;
  json?: boolean;
}

/** `citadel init`: propose a workflow from the repository's own conventions; write it only with --write. */
export function initCommand(program: Command, io: Io): void {
  program
    .command('init')
    .description(`read the repository's lockfiles, test command and CI, and propose a workflow (${REPOSITORY_WORKFLOW_PATH}); writes nothing without --write`)
    .option('--repo <dir>', 'the git repository to read', '.')
    .option('--write', `write ${REPOSITORY_WORKFLOW_PATH}, and the proposed .worktreeinclude when the repository has none`)
    .option('--force', `with --write, replace an existing ${REPOSITORY_WORKFLOW_PATH}`)
    .option('--json', 'print exactly one JSON document')
    .action(async (options: InitOptions) => {
      if (options.force === true && options.write !== true) throw new CitadelError('USAGE_ERROR', '--force replaces the file --write writes: pass --write too');
      const outcome = await initRepository(options.repo, { write: options.write === true, force: options.force === true });
      if (options.json === true) printJson(io, outcome);
      else io.stdout(renderInit(outcome));
    });
}

const PARTS: readonly { part: ProposalFinding['part']; title: string }[] = [
  { part: 'setup', title: 'setup' },
  { part: 'verifier', title: 'verifier' },
  { part: 'steps', title: 'steps' },
  { part: 'protected_paths', title: 'protected paths' },
  { part: 'worktree_include', title: '.worktreeinclude' },
  { part: 'note', title: 'notes' },
];

function renderInit(outcome: InitOutcome): string {
  // Every field comes from the repository (its scripts, file names, CI): shown, never acted on by the terminal.
  const lines = [`repository: ${shown(outcome.repo)}`];
  for (const { part, title } of PARTS) {
    const found = outcome.findings.filter((finding) => finding.part === part);
    if (found.length === 0) continue;
    lines.push(`${title}:`);
    for (const finding of found) lines.push(part === 'note' ? `  ${shown(finding.proposal)} (${shown(finding.evidence)})` : `  ${shown(finding.evidence)} → ${shown(finding.proposal)}`);
  }
  const verifier = outcome.workflow?.verifier;
  if (verifier !== undefined) lines.push(`verifier argv: ${shown(displayArgv([verifier.command, ...verifier.args]))} (after git diff --check)`);
  if (outcome.path === null) {
    lines.push('', `Nothing written. Run again with --write to write ${REPOSITORY_WORKFLOW_PATH}${outcome.worktree_include.length > 0 ? ' and .worktreeinclude' : ''}.`);
  } else {
    lines.push('', `${outcome.replaced ? 'replaced' : 'wrote'} ${shown(outcome.path)}`);
    if (outcome.worktree_include_path !== null) lines.push(`wrote ${shown(outcome.worktree_include_path)}`);
    else if (outcome.worktree_include.length > 0) lines.push('.worktreeinclude exists already: left as it is');
    lines.push(`fork start and New Fork use ${REPOSITORY_WORKFLOW_PATH} when no workflow is named.`);
  }
  return `${lines.join('\n')}\n`;
}
