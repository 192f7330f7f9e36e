import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EXECUTOR_RUNTIME_IDS } from '../../shared/executors/profile-schema';

/** Runtime ids (every one an executor file may name) the engine, evidence, publishing and UI code must never branch on. */
const IDS = `(?:${EXECUTOR_RUNTIME_IDS.join('|')})`;
const Q = '[\'"`]';
const RULES: readonly { readonly rule: string; readonly pattern: RegExp }[] = [
  { rule: 'compares against a runtime id', pattern: new RegExp(`[!=]==?\\s*${Q}${IDS}${Q}|${Q}${IDS}${Q}\\s*[!=]==?`) },
  { rule: 'switches on a runtime id', pattern: new RegExp(`\\bcase\\s+${Q}${IDS}${Q}\\s*:`) },
  { rule: 'looks a runtime id up in a list', pattern: new RegExp(`\\[\\s*${Q}${IDS}${Q}[^\\]]*\\]\\s*\\.\\s*(?:includes|indexOf)\\s*\\(`) },
  { rule: 'imports a built-in adapter', pattern: new RegExp(`(?:\\bfrom\\s+|\\bimport\\s*\\(\\s*|\\brequire\\s*\\(\\s*)${Q}[^'"\`]*runtimes/${IDS}(?:/[^'"\`]*)?${Q}`) },
];

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly rule: string;
  readonly text: string;
}

/** Every line of one source text that branches on, or imports, a built-in runtime. */
export function runtimeIdFindings(file: string, source: string): Finding[] {
  return source.split('\n').flatMap((text, index) =>
    RULES.filter(({ pattern }) => pattern.test(text)).map(({ rule }) => ({ file, line: index + 1, rule, text: text.trim() })),
  );
}

const SOURCE = /\.(?:ts|mts|js|mjs|svelte)$/;

/** The findings in every source file under the given folders of root. */
export function scanFolders(root: string, folders: readonly string[]): Finding[] {
  return folders.flatMap((folder) =>
    readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
      .flatMap((entry) => {
        const file = path.relative(root, path.join(entry.parentPath, entry.name));
        return runtimeIdFindings(file, readFileSync(path.join(root, file), 'utf8'));
      }),
  );
}
