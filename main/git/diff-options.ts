import { devNull } from 'node:os';

/**
 * Flags that fix diff output regardless of the repository's config (colour, external drivers,
 * textconv, prefixes, relative paths, algorithm, order file), so numstat, changed paths and the
 * diff digest mean the same on every machine. Context flags such as `--unified` are not here: they
 * turn on patch output.
 */
export const PINNED_DIFF_OPTIONS: readonly string[] = [
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-relative',
  '--ignore-submodules=none',
  '--submodule=short',
  '--diff-algorithm=myers',
  '--indent-heuristic',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  `-O${devNull}`,
];
