import { streamGit, type RepositoryLocation } from './run';

export interface TreeEntry {
  readonly mode: string;
  readonly oid: string;
  /** Repository-relative path. */
  readonly path: string;
  /** Bytes of a blob; null for a gitlink, or when sizes were not asked for. */
  readonly size: number | null;
}

/**
 * The entries of `tree` whose mode is `mode` (`120000` links, `160000` gitlinks), from
 * `ls-tree -r -z` streamed: a tree of any size is read in one pass and only those entries are kept.
 * `sizes` adds each blob's size (`-l`), which costs a lookup per blob.
 */
export async function treeEntriesOfMode(repo: string | RepositoryLocation, tree: string, mode: string, sizes = false): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  let pending = Buffer.alloc(0);
  const take = (record: Buffer): void => {
    // `<mode> SP <type> SP <oid> [SP+ <size>] TAB <path>`
    const tab = record.indexOf(0x09);
    const [entryMode, , oid, size] = record.subarray(0, tab).toString('utf8').split(/ +/);
    if (entryMode !== mode || oid === undefined) return;
    const bytes = size === undefined || size === '-' ? null : Number(size);
    entries.push({ mode, oid, path: record.subarray(tab + 1).toString('utf8'), size: bytes });
  };
  await streamGit(repo, ['ls-tree', '-r', '-z', '--full-tree', ...(sizes ? ['-l'] : []), tree], {
    onStdout: (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (let end = pending.indexOf(0); end !== -1; end = pending.indexOf(0)) {
        take(pending.subarray(0, end));
        pending = pending.subarray(end + 1);
      }
    },
  });
  return entries;
}
