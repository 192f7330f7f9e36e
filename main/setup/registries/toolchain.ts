import os from 'node:os';
import path from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A file of the repository as every worktree gets it (at HEAD), or null when the repository has
 * none; the reader refuses a symlink or a file over `maxBytes`.
 */
export type CommittedFile = (file: string, maxBytes?: number) => Promise<string | null>;

/** What a `registries` step is bound to: the hosts its proxy allows, and the settings it is given so that the tool uses them. */
export interface Registries {
  readonly hosts: readonly string[];
  /** The registry settings the step's environment carries: a contained step cannot read the operator's home. */
  readonly env: Readonly<Record<string, string>>;
}

/** The operator's home and XDG folders, as the tools themselves resolve them. */
export function homeOf(env: Env): string {
  return env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
}

export function configHome(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homeOf(env), '.config');
}

export function configDirs(env: Env): string[] {
  const dirs = (env.XDG_CONFIG_DIRS ?? '').split(':').filter((dir) => path.isAbsolute(dir));
  return dirs.length > 0 ? dirs : ['/etc/xdg'];
}

/** A set variable's value, or null when it is unset or empty. */
export const envValue = (env: Env, name: string): string | null => {
  const value = env[name];
  return value === undefined || value.trim() === '' ? null : value.trim();
};

/** What the registries need of npm's settings as the operator's configuration resolves them (package-toolchain.ts reads them from npm). */
export interface OperatorNpm {
  readonly registry: string;
  /** The operator's registries by scope (`@scope:registry`). */
  readonly scopes: Readonly<Record<string, string>>;
}
