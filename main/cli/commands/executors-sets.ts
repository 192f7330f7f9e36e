import { CitadelError } from '../../../shared/errors';
import { openOrchestratorContext } from '../../host/open-context';
import { profileSets } from '../../orchestrator';
import { printJson, type Io } from '../io/output';

/**
 * `citadel executors sets [NAME] [--json]`: the profile sets saved in Mission Control's New Fork.
 * Without NAME, one line per set; with NAME, that set's executor file, ready for `fork start --executors`.
 */
export async function executorsSets(io: Io, name: string | undefined, options: { json: boolean }): Promise<void> {
  const sets = await profileSets(await openOrchestratorContext());
  if (name !== undefined) {
    const set = sets.find((s) => s.name === name);
    if (set === undefined) throw new CitadelError('PROFILE_SET_NOT_FOUND', `No saved profile set is named "${name}".`);
    printJson(io, set.file);
    return;
  }
  if (options.json) printJson(io, { sets });
  else if (sets.length === 0) io.stdout('No saved profile sets (save one in Mission Control, New Fork).\n');
  else io.stdout(sets.map((s) => `${s.name}: ${s.file.executors.map((p) => p.profile_id).join(', ')} (saved ${s.saved_at})\n`).join(''));
}
