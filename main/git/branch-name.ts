import { CitadelError } from '../../shared/errors';
import { runGit } from './run-git';

/** Refuses a branch name git would not accept, or one that could be read as an option. */
export async function assertBranchName(repo: string, name: string): Promise<void> {
  const valid =
    !name.startsWith('-') &&
    (await runGit(repo, ['check-ref-format', `refs/heads/${name}`], { okExitCodes: [0, 1] })).exitCode === 0;
  if (!valid) throw new CitadelError('GIT_REF_INVALID', `"${name}" is not a valid branch name`, { details: { branch: name } });
}
