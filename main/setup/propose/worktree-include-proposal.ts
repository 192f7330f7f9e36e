import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { ProposalFinding } from '../../../shared/fork/workflow-proposal';
import { runGit } from '../../git/run';
import { WORKTREE_INCLUDE_LIMITS } from '../../workspace/worktree-include';

/** Environment files tests commonly read (`.env`, `.env.test`, …); the committed examples are tracked, so never listed here. */
const ENV_FILE = /(^|\/)\.env(\.[^/]+)?$/;

/**
 * The environment files whose names say they hold no secret: test settings and the examples a
 * project hands out. Any other (`.env`, `.env.local`, `.env.production`, `.env.test.local`) is what
 * one keeps real credentials in, and every agent and setup step would read what is copied.
 */
const NON_SECRET_ENV_FILE = /(^|\/)\.env\.(test|testing|example|sample|template|dist)$/;

/**
 * The `.worktreeinclude` lines `citadel init` proposes: the ignored, clearly non-secret environment
 * files that exist in the operator's checkout (a fresh worktree lacks them, so tests that read them
 * fail there), each anchored to its path, and only those `.worktreeinclude` would accept (a regular
 * file, within its size limit). Other environment files are only named in a note: copying them hands
 * their secrets to every agent, so the operator adds them by hand if that is meant. Ignored folders
 * are not entered (`--directory`): no `node_modules` walk.
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
    if (!NON_SECRET_ENV_FILE.test(file)) {
      findings.push({
        part: 'note',
        proposal: `${file} is not proposed for .worktreeinclude: it may hold secrets, and every agent and setup step would read it; add /${file} to .worktreeinclude by hand if they may`,
        evidence: `${file} exists and git ignores it`,
      });
      continue;
    }
    if (info.size > WORKTREE_INCLUDE_LIMITS.fileBytes || lines.length >= WORKTREE_INCLUDE_LIMITS.files) {
      findings.push({ part: 'note', proposal: `${file} is not proposed for .worktreeinclude: over its limits`, evidence: `${info.size} bytes` });
      continue;
    }
    lines.push(`/${file}`);
    findings.push({ part: 'worktree_include', proposal: `/${file}`, evidence: `${file} exists and git ignores it: a fresh worktree would not have it` });
  }
  return { lines, findings };
}
