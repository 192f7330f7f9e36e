import { z } from 'zod';
import { BranchIdSchema, ForkIdSchema } from '../fork/ids';
import { defineChannels, type BridgeOf, type ReplyOf, type RequestOf, type ResponseOf } from './define-channels';

/**
 * Channels only the Electron shell has: native OS dialogs with no orchestrator behind them, so
 * they stay out of the IPC contract the web host also serves. The preload exposes them on
 * `window.citadel` beside the contract functions; under the web host they are absent and the
 * renderer falls back (a text field for the folder, a Blob download for the export).
 *
 * Picking an executor file needs no channel: `<input type=file>` and `File.text()` work the same
 * in both shells, and the contract takes the file's text.
 */
const APP = defineChannels('citadel-app', {
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
  /**
   * Opens one branch's worktree in the desktop's editor (the application it opens folders with) or
   * in a terminal there. Ids only: the main process finds the worktree, so the renderer can name no path.
   */
  openWorktree: {
    request: z.strictObject({ fork_id: ForkIdSchema, branch_id: BranchIdSchema, with: z.enum(['editor', 'terminal']) }),
    response: z.strictObject({ opened: z.literal(true) }),
  },
});

export const APP_CHANNELS = APP.table;
/** The Electron IPC names are `citadel-app:<name>`, a prefix apart from the contract's `citadel:`. */
export const { names: APP_CHANNEL_NAMES, replySchema: appReplySchema, ipcName: appIpcChannelName, parseRequest: parseAppRequest } = APP;
export type AppChannelName = (typeof APP_CHANNEL_NAMES)[number];
export type AppChannelRequest<C extends AppChannelName> = RequestOf<typeof APP_CHANNELS, C>;
export type AppChannelResponse<C extends AppChannelName> = ResponseOf<typeof APP_CHANNELS, C>;
/** App channels answer with the same typed envelope as the contract's channels. */
export type AppReply<C extends AppChannelName> = ReplyOf<typeof APP_CHANNELS, C>;

/** The Electron-only functions the preload adds to `window.citadel`, one per app channel. */
export type CitadelAppBridge = BridgeOf<typeof APP_CHANNELS>;
