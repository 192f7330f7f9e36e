import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isCitadelError, type CitadelError } from '../../shared/errors';

/** Runs git in `cwd` as a fixed author. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

export function write(root: string, file: string, content: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), content);
}

/** A repository in `root` ignoring `.env`, `config/local.json`, `node_modules/`, `*.log`, with `config/app.json` tracked; `.worktreeinclude` holds `include` when given. */
export function includeRepository(root: string, include: string | null): string {
  write(root, '.gitignore', '.env\nconfig/local.json\nnode_modules/\n*.log\n');
  write(root, 'config/app.json', '{"tracked":true}\n');
  write(root, '.env', 'SECRET=hunter2\n');
  write(root, 'config/local.json', '{"local":true}\n');
  write(root, 'notes.txt', 'untracked, not ignored\n');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '.gitignore', 'config/app.json');
  git(root, 'commit', '-q', '-m', 'initial');
  if (include !== null) write(root, '.worktreeinclude', include);
  return root;
}

/** The typed error `promise` is refused with. */
export async function refusalOf(promise: Promise<unknown>): Promise<CitadelError> {
  try {
    await promise;
  } catch (error) {
    if (isCitadelError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}
