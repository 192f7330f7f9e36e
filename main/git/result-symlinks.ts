import { requireCommit } from './refs';
import { runGit, stdoutFields, type RepositoryLocation } from './run';
import { treeEntriesOfMode } from './tree-entries';

const SYMLINK_MODE = '120000';
/** Linux refuses a link target of PATH_MAX (4096) bytes or more; git would fail to check one out. */
const MAX_TARGET_BYTES = 4095;
/** The kernel's own limit on links followed while resolving one path (ELOOP). */
const MAX_HOPS = 40;

/** Why a link is refused: its target is absolute, climbs above the tree's root, or cannot be resolved at all. */
export type EscapeReason = 'absolute' | 'outside' | 'unresolvable';

export interface EscapingSymlink {
  /** Repository-relative path of the link the branch added or changed. */
  readonly path: string;
  readonly reason: EscapeReason;
}

export interface SymlinkScan {
  /** Every link the branch added or changed (new mode 120000 in base..result), sorted. */
  readonly scanned: readonly string[];
  readonly escaping: readonly EscapingSymlink[];
}

/** One link of the result tree: its target, read on demand; null when it cannot be a path at all. */
export type LinkLookup = (path: string) => Promise<string | null> | undefined;

/**
 * The symbolic links a branch added or changed from `base` to `result` that point outside the
 * worktree. Absolute targets are always refused: every worktree lives inside the fork root, so an
 * absolute path inside the fork root (its keys, another branch, the objective) is as outside as
 * /etc/passwd. A relative target is resolved from the link's directory, following the result
 * tree's other links (those of the base too), and refused when it climbs above the root. Links the
 * base already had are the operator's, not the branch's: they are followed, never refused.
 * Targets are read from git objects, never through the file system, which the agent wrote.
 */
export async function scanResultSymlinks(repo: string | RepositoryLocation, base: string, result: string): Promise<SymlinkScan> {
  const [from, to] = await Promise.all([requireCommit(repo, base), requireCommit(repo, result)]);
  const raw = await runGit(repo, ['diff', '--raw', '-z', '--no-renames', '--no-abbrev', '--no-ext-diff', '--ignore-submodules=none', from, to, '--']);
  const scanned = changedLinks(stdoutFields(raw));
  if (scanned.length === 0) return { scanned, escaping: [] };
  const links = new Map((await treeEntriesOfMode(repo, to, SYMLINK_MODE, true)).map((entry) => [entry.path, entry]));
  const targets = new Map<string, Promise<string | null>>();
  const lookup: LinkLookup = (path) => {
    const link = links.get(path);
    if (link === undefined) return undefined;
    let target = targets.get(path);
    if (target === undefined) {
      target = link.size === null || link.size > MAX_TARGET_BYTES ? Promise.resolve(null) : runGit(repo, ['cat-file', 'blob', link.oid]).then((run) => usableTarget(run.stdout));
      targets.set(path, target);
    }
    return target;
  };
  const escaping: EscapingSymlink[] = [];
  for (const path of scanned) {
    const reason = await symlinkEscape(path, lookup);
    if (reason !== null) escaping.push({ path, reason });
  }
  return { scanned, escaping };
}

/**
 * Where the link at `linkPath` leads, resolved as the kernel would inside the tree: null when it
 * stays inside, else why not. Lexical where the tree says nothing: `missing/..` is taken as the
 * link's directory, so a target that could only stay inside through a missing component is refused.
 */
export async function symlinkEscape(linkPath: string, lookup: LinkLookup): Promise<EscapeReason | null> {
  const first = lookup(linkPath);
  if (first === undefined) throw new Error(`${linkPath} is not a link of the tree`);
  let target = await first;
  const dir = linkPath.split('/').slice(0, -1);
  let rest: string[] = [];
  for (let hops = 0; ; hops += 1) {
    if (target === null || hops > MAX_HOPS) return 'unresolvable';
    if (target.startsWith('/')) return 'absolute';
    rest = [...target.split('/'), ...rest];
    let next: Promise<string | null> | undefined;
    while (next === undefined && rest.length > 0) {
      const component = rest.shift() ?? '';
      if (component === '' || component === '.') continue;
      if (component === '..') {
        if (dir.length === 0) return 'outside';
        dir.pop();
        continue;
      }
      next = lookup([...dir, component].join('/'));
      if (next === undefined) dir.push(component);
    }
    // Resolved to the end without meeting another link: inside.
    if (next === undefined) return null;
    // Another link: its target is resolved from its own directory (`dir`), then what is left of this one.
    target = await next;
  }
}

/** `--raw -z`: `:old-mode new-mode old-oid new-oid status` NUL path NUL (no renames, so one path). */
function changedLinks(fields: readonly string[]): string[] {
  const paths: string[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const newMode = (fields[index] ?? '').split(' ')[1];
    if (newMode === SYMLINK_MODE) paths.push(fields[index + 1] ?? '');
  }
  return paths.sort();
}

/** A link target as text; null when it holds a NUL (no path can), so it is refused as unresolvable. */
function usableTarget(bytes: Buffer): string | null {
  return bytes.includes(0) ? null : bytes.toString('utf8');
}
