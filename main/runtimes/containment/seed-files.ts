import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RuntimeSeedFile } from '../runtime-adapter';

/**
 * The operator's config directory for a runtime: the directory its own env setting names, else
 * `~/<dotDir>`; null without either (no home, nothing to seed).
 */
export function operatorConfigDir(env: Readonly<Record<string, string | undefined>>, setting: string, dotDir: string): string | null {
  const named = env[setting];
  if (named !== undefined && path.isAbsolute(named)) return path.resolve(named);
  const home = env.HOME;
  return home !== undefined && path.isAbsolute(home) ? path.join(path.resolve(home), dotDir) : null;
}

/** Those of `files` that exist in `sourceDir`, each to the same name below `targetDir` of the runtime home. */
export function seedsFrom(sourceDir: string | null, targetDir: string, files: readonly string[]): RuntimeSeedFile[] {
  if (sourceDir === null) return [];
  return files
    .map((file) => ({ source: path.join(sourceDir, file), target: `${targetDir}/${file}` }))
    .filter((seed) => existsSync(seed.source));
}
