import { lstat, mkdir, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';

/** The fork root (decisions D2): $CITADEL_HOME, else the platform's per-user data folder. */
export function defaultForkRoot(env: Readonly<Record<string, string | undefined>> = process.env, platform = process.platform): string {
  if (env.CITADEL_HOME) return path.resolve(env.CITADEL_HOME);
  const home = env.HOME ?? os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Citadel');
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Citadel');
  return path.join(env.XDG_DATA_HOME ? path.resolve(env.XDG_DATA_HOME) : path.join(home, '.local', 'share'), 'citadel');
}

/** Every path Citadel generates under one fork root, each checked to stay inside it with no symlinks. */
export class ForkRoot {
  private constructor(readonly dir: string) {}

  /** Creates the root if needed and resolves it once with realpath; later paths are checked against it. */
  static async open(dir: string): Promise<ForkRoot> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new ForkRoot(await realpath(dir));
  }

  forkDir(forkId: string): string {
    return this.inside('forks', forkId);
  }
  branchDir(forkId: string, branchId: string): string {
    return this.inside('forks', forkId, 'branches', branchId);
  }
  worktreeDir(forkId: string, branchId: string): string {
    return this.inside('worktrees', forkId, branchId);
  }
  /** Citadel's own git repositories of one fork (the base object store and each branch's git dir). */
  repositoriesDir(forkId: string): string {
    return this.inside('repositories', forkId);
  }
  forksDir(): string {
    return this.inside('forks');
  }
  keysDir(): string {
    return this.inside('keys');
  }
  /** `<root>/settings/<name>`: the operator's own settings, beside (never inside) any fork's evidence. */
  settingsFile(name: string): string {
    return this.inside('settings', name);
  }

  /** Creates a generated directory, refusing if any component below the root is a symlink. */
  async ensureDir(dir: string): Promise<string> {
    await this.assertNoSymlinks(dir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await this.assertNoSymlinks(dir);
    return dir;
  }

  /** A symlink anywhere in a generated path is rejected (decisions D2). */
  async assertNoSymlinks(target: string): Promise<void> {
    const relative = this.relativeInside(target);
    let current = this.dir;
    for (const part of relative.split(path.sep).filter(Boolean)) {
      current = path.join(current, part);
      const info = await lstat(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      if (info === null) return;
      if (info.isSymbolicLink()) {
        throw new CitadelError('PATH_ESCAPE', `refusing a symlink inside the fork root: ${current}`, { details: { path: current } });
      }
    }
  }

  private inside(...parts: string[]): string {
    for (const part of parts) {
      if (part === '' || part === '.' || part === '..' || part.includes('/') || part.includes('\\') || part.includes('\0')) {
        throw new CitadelError('PATH_ESCAPE', `refusing a generated path component ${JSON.stringify(part)}`);
      }
    }
    const full = path.join(this.dir, ...parts);
    this.relativeInside(full);
    return full;
  }

  private relativeInside(target: string): string {
    const relative = path.relative(this.dir, path.resolve(target));
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new CitadelError('PATH_ESCAPE', `path escapes the fork root: ${target}`, { details: { path: target } });
    }
    return relative;
  }
}
