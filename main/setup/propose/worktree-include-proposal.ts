import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { ProposalFinding } from '../../../shared/fork/workflow-proposal';
import { runGit } from '../../git/run';
import { WORKTREE_INCLUDE_LIMITS } from '../../workspace/worktree-include';

/** Environment files tests commonly read (`.env`, `.env.test`, …); the committed examples are tracked, so never listed here. */
const ENV_FILE = /(^|\/)\.env(\.[^/]+)?$/;

/**
 * The `.worktreeinclude` lines `citadel init` proposes: the ignored environment files that exist
 * in the operator's checkout (a fresh worktree lacks them, so tests that read them fail there),
 * each anchored to its path, and only those `.worktreeinclude` would accept (a regular file,
 * within its size limit). Ignored folders are not entered (`--directory`): no `node_modules` walk.
 */
export async function proposeWorktreeInclude(root: string): Promise<{ lines: string[]; findings: ProposalFinding[] }> {
  const listed = (await runGit(root, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'])).stdout.toString('utf8');
  const candidates = listed
    .split('\0')
    .filter((entry) => entry !== '' && !entry.endsWith('/') && ENV_FILE.test(entry))
    .sort();
  const lines: string[] = [];
  const findings: ProposalFinding[] = [];
  for (const file of candidates) {
    const info = await lstat(path.join(root, file)).catch(() => null);
    if (info === null || !info.isFile() || info.nlink > 1) continue;
    if (info.size > WORKTREE_INCLUDE_LIMITS.fileBytes || lines.length >= WORKTREE_INCLUDE_LIMITS.files) {
      findings.push({ part: 'note', proposal: `${file} is not proposed for .worktreeinclude: over its limits`, evidence: `${info.size} bytes` });
      continue;
    }
    lines.push(`/${file}`);
    findings.push({ part: 'worktree_include', proposal: `/${file}`, evidence: `${file} exists and git ignores it: a fresh worktree would not have it` });
  }
  return { lines, findings };
}
