import type { AnyExecutorFile } from '../../shared/executors/profile-schema';
import type { ProfileSet } from '../../shared/executors/profile-sets';
import type { OrchestratorContext } from '../host/context';
import { deleteProfileSet as deleteStored, readProfileSets, saveProfileSet as saveStored } from '../store/profile-sets';

/** The operator's saved executor profile sets, by name (stored in the fork root's settings). */
export function profileSets(ctx: Pick<OrchestratorContext, 'root'>): Promise<ProfileSet[]> {
  return readProfileSets(ctx.root);
}

/** Saves `file` (already validated by the shared executor-file schema) as `name`, replacing a set of that name. */
export function saveProfileSet(ctx: Pick<OrchestratorContext, 'root' | 'now'>, name: string, file: AnyExecutorFile): Promise<ProfileSet[]> {
  return saveStored(ctx.root, { name, saved_at: ctx.now().toISOString(), file });
}

export function deleteProfileSet(ctx: Pick<OrchestratorContext, 'root'>, name: string): Promise<ProfileSet[]> {
  return deleteStored(ctx.root, name);
}
