import { CitadelError } from '../../shared/errors';
import { runGit, stdoutLine } from './run-git';

/** The commit id `revision` names in `repo`, or null when it names no commit. */
export async function revParse(repo: string, revision: string): Promise<string | null> {
  // An empty name would peel to `^{commit}`, which git reads as HEAD.
  if (revision === '') return null;
  // --end-of-options: a revision such as `--output=x` is looked up, never read as an option.
  const run = await runGit(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], {
    okExitCodes: [0, 1],
  });
  return run.exitCode === 0 ? stdoutLine(run) : null;
}

/** Like `revParse`, but a revision that names no commit is refused with GIT_REF_INVALID. */
export async function requireCommit(repo: string, revision: string): Promise<string> {
  const commit = await revParse(repo, revision);
  if (commit === null) {
    throw new CitadelError('GIT_REF_INVALID', `"${revision}" does not name a commit`, { details: { revision } });
  }
  return commit;
}
