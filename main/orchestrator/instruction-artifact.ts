import type { Workflow } from '../../shared/fork/workflow';
import { quoteLines } from '../../shared/quoted-lines';

/**
 * The runtime-local instruction artifact, given on stdin (decisions D5): the objective, the
 * workflow steps in order, and the rules of the worktree. Identical for every branch of a fork
 * except nothing: branches must receive the same declared work. A follow-up (issue 32) is told the
 * objective it continues as context: the earlier work is already in its worktree, the objective is its task.
 */
export function instructionArtifact(objective: string, workflow: Workflow, protectedPaths: readonly string[], parentObjective: string | null = null): string {
  const context =
    parentObjective === null
      ? []
      : [
          '# Context: the work this continues',
          '',
          'This worktree already holds the result of an earlier objective, given here as context only:',
          '',
          ...quoteLines(parentObjective.trim()),
          '',
          'Build on that work. Your task is the objective below.',
          '',
        ];
  const steps = workflow.steps.map((step, i) => `${i + 1}. [${step.id}] ${step.instruction}`).join('\n');
  const protectedList = protectedPaths.length === 0 ? '(none)' : protectedPaths.map((p) => `- ${p}`).join('\n');
  return [
    ...context,
    '# Objective',
    '',
    objective.trim(),
    '',
    '# Workflow',
    '',
    steps,
    '',
    '# Rules of this worktree',
    '',
    '- Work only inside the current directory. It is a git worktree created for you; other worktrees and the parent repository are off limits.',
    '- Do not run git commands that change history or branches: no commit, checkout, switch, branch, reset, clean, stash, worktree, merge, rebase or push. Citadel commits your changes itself after you finish.',
    '- Do not edit these protected paths (a change to any of them fails the branch):',
    protectedList,
    '- When you are done, stop. A verifier runs after you exit.',
    '',
  ].join('\n');
}
