import { z } from 'zod';
import { IsoTimeSchema } from '../iso-time';
import { AnyExecutorFileSchema } from './profile-schema';

/**
 * Saved executor profile sets (issue 14 item 5): named executor files kept in the fork root's
 * settings, so a local-model operator does not rebuild the same profiles for every fork. A set is
 * an executor file as the shared schema defines it, so loading one is validated like any file.
 */

// Control characters would make a name unreadable in a list or a terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export const ProfileSetNameSchema = z
  .string()
  .min(1, 'A set name is required.')
  .max(80, 'A set name has at most 80 characters.')
  .refine((name) => name.trim() === name, { message: 'A set name cannot start or end with a space.', params: { rule: 'name_untrimmed' } })
  .refine((name) => !CONTROL.test(name), { message: 'A set name cannot hold control characters.', params: { rule: 'name_control_character' } });

export const ProfileSetSchema = z.strictObject({
  name: ProfileSetNameSchema,
  saved_at: IsoTimeSchema,
  file: AnyExecutorFileSchema,
});
export type ProfileSet = z.infer<typeof ProfileSetSchema>;

export const PROFILE_SETS_SCHEMA_VERSION = 1;
export const MAX_PROFILE_SETS = 100;

/** `<fork root>/settings/profile-sets.json`. */
export const ProfileSetsFileSchema = z
  .strictObject({
    schema_version: z.literal(PROFILE_SETS_SCHEMA_VERSION),
    sets: z.array(ProfileSetSchema).max(MAX_PROFILE_SETS),
  })
  .refine((file) => new Set(file.sets.map((set) => set.name)).size === file.sets.length, {
    path: ['sets'],
    params: { rule: 'duplicate_set_name' },
    message: 'set names must be unique',
  });
export type ProfileSetsFile = z.infer<typeof ProfileSetsFileSchema>;
