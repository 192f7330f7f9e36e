import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SimulatedOutcome } from './scenario';

/** What the simulated agents really do in their cwd, shared by both simulations: edit files, run git, wait. */

export async function applyEdits(cwd: string, edits: readonly { path: string; content: string }[]): Promise<void> {
  for (const edit of edits) {
    const target = path.resolve(cwd, edit.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, edit.content);
  }
}

/** Test-only: runs each argv in `cwd` (what an allowed command of a real agent could do); output goes to stderr. */
export async function runCommands(cwd: string, commands: readonly (readonly string[])[], stderr: (text: string) => void): Promise<void> {
  for (const [file, ...args] of commands) {
    if (file === undefined) continue;
    await new Promise<void>((resolve) => {
      execFile(file, args, { cwd, encoding: 'utf8' }, (error, stdout, errors) => {
        if (error !== null) stderr(`${file}: ${error.message}\n${stdout}${errors}`);
        resolve();
      });
    });
  }
}

interface GitRun {
  command: string;
  exitCode: number;
  output: string;
}

/** Really runs the git command an outcome names; null for outcomes without one. */
export async function runGitOutcome(outcome: SimulatedOutcome, cwd: string): Promise<GitRun | null> {
  const suffix = randomBytes(4).toString('hex');
  const identity = ['-c', 'user.name=Simulated Agent', '-c', 'user.email=simulated-agent@citadel.invalid'];
  switch (outcome) {
    case 'git_checkout':
      return git(cwd, ['checkout', '-b', `simulated-checkout-${suffix}`]);
    case 'git_commit': {
      const added = await git(cwd, ['add', '-A']);
      return added.exitCode === 0 ? git(cwd, [...identity, 'commit', '--allow-empty', '-m', 'simulated agent commit']) : added;
    }
    case 'git_worktree_add':
      return git(cwd, ['worktree', 'add', '-b', `simulated-worktree-${suffix}`, `${cwd}-simulated-worktree-${suffix}`]);
    default:
      return null;
  }
}

function git(cwd: string, args: readonly string[]): Promise<GitRun> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ command: ['git', ...args].join(' '), exitCode: code, output: stdout + stderr });
    });
  });
}

export async function insideGitRepository(cwd: string): Promise<boolean> {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if ((await stat(path.join(dir, '.git')).catch(() => null)) !== null) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until the process is killed, like a runtime stuck on a model call. */
export function hang(): Promise<never> {
  return new Promise(() => setInterval(() => undefined, 60_000));
}
