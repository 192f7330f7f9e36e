import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CommittedFile } from '../../../../main/setup/registries';

/** Writes `files` (relative path → text) under `root`, making folders. */
export function writeTree(root: string, files: Readonly<Record<string, string>>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
}

/** The operator's environment with a home of its own and no system configuration folders of the machine's. */
export function operatorEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CONFIG_DIRS: path.join(home, 'etc-xdg'), ...extra };
}

/** A repository's committed files as the workflow loader hands them over (a real repository in the integration test). */
export const committedOf =
  (files: Readonly<Record<string, string>>): CommittedFile =>
  (file) =>
    Promise.resolve(Object.hasOwn(files, file) ? (files[file] ?? null) : null);
