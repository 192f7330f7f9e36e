import { z } from 'zod';
import { LiveDiffPathsSchema, RuntimeActivitySchema } from './events';

/** As many activities as a shell's timeline keeps per branch (renderer/src/lib/timeline.svelte.ts). */
export const LIVE_TRAIL_MAX_ACTIVITIES = 200;

/**
 * What the drive streamed of one running branch attempt (issue 14), kept beside its run record so
 * that another process (Mission Control beside a `citadel fork start`) can relay it and a view
 * opened later, or after a restart, can show it: the latest live diff and the newest activities,
 * redacted as streamed, each with when it was streamed (the runtime's log holds no times). Private
 * fork state: never in a replay or a proof.
 */
export const LiveTrailSchema = z.strictObject({
  schema_version: z.literal(1),
  diff: z
    .strictObject({
      at: z.iso.datetime(),
      files_changed: z.number().int().nonnegative(),
      insertions: z.number().int().nonnegative(),
      deletions: z.number().int().nonnegative(),
      /** The changed files named (issue 29); absent in a trail written before they were kept. */
      paths: LiveDiffPathsSchema.optional(),
    })
    .nullable(),
  activities: z
    .array(
      z.strictObject({
        /** Counts every activity of the attempt from 1, the ones no longer kept included: a reader knows which it has not seen. */
        seq: z.number().int().positive(),
        at: z.iso.datetime(),
        ...RuntimeActivitySchema.shape,
      }),
    )
    .max(LIVE_TRAIL_MAX_ACTIVITIES),
});
export type LiveTrail = z.infer<typeof LiveTrailSchema>;
export type LiveTrailActivity = LiveTrail['activities'][number];
