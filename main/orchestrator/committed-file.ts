import { CitadelError } from '../../shared/errors';
import { runGit } from '../git/run';
import type { CommittedFile } from '../setup/registries';

/** More than any real project's settings file; a larger one is refused rather than read. */
export const MAX_SETTINGS_BYTES = 64 * 1024;

/**
 * A reader of the repository's files at `revision` (what every worktree gets: HEAD, or a follow-up's
 * base, the parent branch's result), null for a file it does not
 * have: a symlink (a tool would follow it to a file no check has read) or a file over `maxBytes` is
 * refused, since setup reads a registry a repository names only to refuse it.
 */
export function committedFiles(repoTopLevel: string, revision = 'HEAD'): CommittedFile {
  return async (file, maxBytes = MAX_SETTINGS_BYTES) => {
    const listed = await runGit(repoTopLevel, ['ls-tree', '-l', '-z', '--end-of-options', revision, '--', file], { okExitCodes: [0, 128] });
    const entry = /^(\d+) blob [0-9a-f]+ +(\d+)\t([^\0]*)\0/.exec(listed.stdout.toString('utf8'));
    // ls-tree matches path prefixes: only the very file counts.
    if (listed.exitCode !== 0 || entry === null || entry[3] !== file) return null;
    const refuse = (why: string) =>
      new CitadelError('SETUP_REGISTRY_UNSUPPORTED', `${file} ${why}; setup reads registries from the operator's configuration only`, { details: { file } });
    if (entry[1] === '120000') throw refuse('is a symlink');
    if (Number(entry[2]) > maxBytes) throw refuse(`is over ${maxBytes} bytes`);
    return (await runGit(repoTopLevel, ['cat-file', 'blob', `${revision}:${file}`])).stdout.toString('utf8');
  };
}
