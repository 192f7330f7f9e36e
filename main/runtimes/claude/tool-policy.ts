import type { InvocationContainment } from '../adapter-contract/runtime-adapter';

/**
 * Citadel's fixed Claude Code tool policy (decisions D5), each passed as ONE comma-joined argv element.
 *
 * No bare Write/Edit/MultiEdit: measured on Claude Code 2.1.328 (recordings/claude/b4_*, b5_*), a bare
 * Write let the CLI write outside its working directory; without it the permission mode grants edits
 * inside the worktree only.
 */
export const CLAUDE_ALLOWED_TOOLS_LIST = [
  'Read',
  'Glob',
  'Grep',
  'Bash(npm test:*)',
  'Bash(npm run test:*)',
  'Bash(npm run lint:*)',
  'Bash(npm run build:*)',
  'Bash(npm run typecheck:*)',
  'Bash(npx vitest:*)',
  'Bash(node --test:*)',
  'Bash(git status:*)',
  'Bash(git diff:*)',
  'Bash(git log:*)',
  'Bash(git show:*)',
  'Bash(git ls-files:*)',
  'Bash(git grep:*)',
  'Bash(git blame:*)',
] as const;

export const CLAUDE_DISALLOWED_TOOLS_LIST = [
  'Bash(git branch:*)',
  'Bash(git checkout:*)',
  'Bash(git switch:*)',
  'Bash(git commit:*)',
  'Bash(git reset:*)',
  'Bash(git clean:*)',
  'Bash(git worktree:*)',
  'Bash(git push:*)',
  'Bash(git merge:*)',
  'Bash(git rebase:*)',
  'Bash(git stash:*)',
  'Bash(git tag:*)',
  'Bash(git update-ref:*)',
  'Bash(git config:*)',
  'Bash(claude:*)',
  'Bash(codex:*)',
  'Bash(sudo:*)',
  'WebFetch',
  'WebSearch',
] as const;

/**
 * Granted only when the operating system contains the run (issue 11, item 7): edits by path rule,
 * `./**` = below the working directory (the worktree), so `dontAsk` (which grants nothing it is not
 * told to) can edit at all. The sandbox, not this rule, is what stops a write outside the worktree.
 */
export const CLAUDE_CONTAINED_EDIT_TOOLS_LIST = ['Edit(./**)'] as const;

export const CLAUDE_ALLOWED_TOOLS = CLAUDE_ALLOWED_TOOLS_LIST.join(',');

/** The allowed-tools argv element for a containment mode. */
export function claudeAllowedTools(containment: InvocationContainment): string {
  return containment === 'contained' ? [...CLAUDE_ALLOWED_TOOLS_LIST, ...CLAUDE_CONTAINED_EDIT_TOOLS_LIST].join(',') : CLAUDE_ALLOWED_TOOLS;
}
export const CLAUDE_DISALLOWED_TOOLS = CLAUDE_DISALLOWED_TOOLS_LIST.join(',');
