import { z } from 'zod';
import { CitadelErrorDataSchema } from '../errors';

/**
 * Channels only the Electron shell has: native OS dialogs with no orchestrator behind them, so
 * they stay out of the IPC contract the web host also serves. The preload exposes them on
 * `window.citadel` beside the contract functions; under the web host they are absent and the
 * renderer falls back (a text field for the folder, a Blob download for the export).
 *
 * Picking an executor file needs no channel: `<input type=file>` and `File.text()` work the same
 * in both shells, and the contract takes the file's text.
 */
export const APP_CHANNELS = {
  /** A folder dialog: the repository's absolute path, which no web API yields; `null` if cancelled. */
  chooseRepositoryFolder: {
    request: z.strictObject({}),
    response: z.strictObject({ path: z.string().min(1).max(4096).nullable() }),
  },
  /** A save dialog for an exported replay or proof; the main process writes `text` where the operator chose. */
  saveArtifact: {
    request: z.strictObject({
      // A bare file name proposed in the dialog, never a path.
      suggested_name: z
        .string()
        .min(1)
        .max(255)
        .regex(/^[^/\\\0]+$/)
        .refine((name) => name !== '.' && name !== '..'),
      text: z.string().max(64 * 1024 * 1024),
    }),
    /** `saved: false` when the operator cancelled. */
    response: z.strictObject({ saved: z.boolean() }),
  },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type AppChannelName = keyof typeof APP_CHANNELS;
export const APP_CHANNEL_NAMES = Object.keys(APP_CHANNELS) as AppChannelName[];
export type AppChannelRequest<C extends AppChannelName> = z.infer<(typeof APP_CHANNELS)[C]['request']>;
export type AppChannelResponse<C extends AppChannelName> = z.infer<(typeof APP_CHANNELS)[C]['response']>;

/** App channels answer with the same typed envelope as the contract's channels. */
export function appReplySchema<C extends AppChannelName>(channel: C) {
  return z.discriminatedUnion('ok', [
    z.strictObject({ ok: z.literal(true), value: APP_CHANNELS[channel].response }),
    z.strictObject({ ok: z.literal(false), error: CitadelErrorDataSchema }),
  ]);
}
export type AppReply<C extends AppChannelName> =
  | { ok: true; value: AppChannelResponse<C> }
  | { ok: false; error: z.infer<typeof CitadelErrorDataSchema> };

/** The Electron IPC channel name for an app channel (a prefix apart from the contract's `citadel:`). */
export const appIpcChannelName = (channel: AppChannelName): string => `citadel-app:${channel}`;

/** The Electron-only functions the preload adds to `window.citadel`, one per app channel. */
export type CitadelAppBridge = { [C in AppChannelName]: (request: AppChannelRequest<C>) => Promise<AppReply<C>> };
