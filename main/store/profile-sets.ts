import path from 'node:path';
import { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import { FORBIDDEN_OPTION_VALUES } from '../../shared/executors/profile-schema';
import { MAX_PROFILE_SETS, PROFILE_SETS_SCHEMA_VERSION, ProfileSetsFileSchema, type ProfileSet, type ProfileSetsFile } from '../../shared/executors/profile-sets';
import { zodViolations } from '../../shared/zod-violations';
import { writePrivateJson } from './atomic-file';
import type { ForkRoot } from './fork-root';
import { readStoredJson, UNTRUSTED } from './read-stored-json';

export function profileSetsFile(root: ForkRoot): string {
  return root.settingsFile('profile-sets.json');
}

/**
 * The saved sets, validated by the shared schema on every read. A file that is not valid is
 * PROFILE_SETS_INVALID and is never overwritten: saving and deleting refuse until the operator
 * repairs or moves it, so a damaged file loses nothing.
 */
export async function readProfileSets(root: ForkRoot): Promise<ProfileSet[]> {
  return (await readFile(root)).sets;
}

export function saveProfileSet(root: ForkRoot, set: ProfileSet): Promise<ProfileSet[]> {
  return change(root, (sets) => {
    const others = sets.filter((s) => s.name !== set.name);
    if (others.length >= MAX_PROFILE_SETS) {
      throw new CitadelError('PROFILE_SETS_INVALID', `At most ${MAX_PROFILE_SETS} profile sets can be saved; delete one first.`);
    }
    // Saving under an existing name replaces that set, as saving a file under its name does.
    return [...others, set].sort((a, b) => a.name.localeCompare(b.name));
  });
}

export function deleteProfileSet(root: ForkRoot, name: string): Promise<ProfileSet[]> {
  return change(root, (sets) => {
    if (!sets.some((s) => s.name === name)) throw new CitadelError('PROFILE_SET_NOT_FOUND', `No saved profile set is named "${name}".`);
    return sets.filter((s) => s.name !== name);
  });
}

// One change at a time in this process: two saves racing would each write the list they read.
let queue: Promise<unknown> = Promise.resolve();

function change(root: ForkRoot, edit: (sets: ProfileSet[]) => ProfileSet[]): Promise<ProfileSet[]> {
  const next = queue.then(async () => {
    const sets = edit((await readFile(root)).sets);
    const file = profileSetsFile(root);
    await root.ensureDir(path.dirname(file));
    await root.assertNoSymlinks(file);
    const value: ProfileSetsFile = { schema_version: PROFILE_SETS_SCHEMA_VERSION, sets };
    await writePrivateJson(file, value);
    return sets;
  });
  queue = next.catch(() => undefined);
  return next;
}

async function readFile(root: ForkRoot): Promise<ProfileSetsFile> {
  const file = profileSetsFile(root);
  await root.assertNoSymlinks(file);
  // Read as JSON first, then checked here, so each violation is reported against the value itself.
  const stored = await readStoredJson(file, z.json(), UNTRUSTED);
  if (stored.status === 'unreadable' && stored.error.code === 'ENOENT') return { schema_version: PROFILE_SETS_SCHEMA_VERSION, sets: [] };
  const repair = `Repair or move ${file}; it is kept as it is, and no set can be saved or deleted until then.`;
  const details = { path: file };
  if (stored.status === 'unreadable') throw new CitadelError('PROFILE_SETS_INVALID', `The saved profile sets could not be read (${stored.error.code ?? 'unknown error'}). ${repair}`, { details });
  if (stored.status !== 'valid') throw new CitadelError('PROFILE_SETS_INVALID', `The saved profile sets file is not valid JSON. ${repair}`, { details });
  const parsed = ProfileSetsFileSchema.safeParse(stored.value);
  if (parsed.success) return parsed.data;
  throw new CitadelError('PROFILE_SETS_INVALID', `The saved profile sets file does not match its schema. ${repair}`, {
    details,
    violations: zodViolations(parsed.error.issues, [], stored.value, FORBIDDEN_OPTION_VALUES),
  });
}
