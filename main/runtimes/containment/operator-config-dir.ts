import path from 'node:path';

/**
 * The operator's config directory for a runtime: the directory its own env setting names, else
 * `~/<dotDir>`; null without either (no home, no login to read).
 */
export function operatorConfigDir(env: Readonly<Record<string, string | undefined>>, setting: string, dotDir: string): string | null {
  const named = env[setting];
  if (named !== undefined && path.isAbsolute(named)) return path.resolve(named);
  const home = env.HOME;
  return home !== undefined && path.isAbsolute(home) ? path.join(path.resolve(home), dotDir) : null;
}
