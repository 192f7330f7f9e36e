import { CitadelError, isCitadelError, type CitadelErrorData } from '../../shared/errors';
import {
  APP_CHANNEL_NAMES,
  APP_CHANNELS,
  appIpcChannelName,
  parseAppRequest,
  type AppChannelName,
  type AppChannelRequest,
  type AppChannelResponse,
} from '../../shared/ipc/app-channels';
import { CHANNEL_NAMES, ipcChannelName } from '../../shared/ipc/contract';
import { requestInvalid } from '../../shared/ipc/define-channels';
import type { MissionControlService } from '../mission-control/service';

/** The part of Electron's `ipcMain` used here; tests pass a fake. */
export interface IpcMainLike<E> {
  handle(channel: string, listener: (event: E, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

type Refusal = { ok: false; error: CitadelErrorData };

/** What the app channels do; each returns its response or throws a CitadelError. */
export type AppChannelHandlers = { [C in AppChannelName]: (request: AppChannelRequest<C>) => Promise<AppChannelResponse<C>> };

/**
 * One `ipcMain.handle` per contract channel, generated from IPC_CHANNELS. Each handler refuses an
 * untrusted sender, takes exactly one argument and hands it to the service, which parses it with
 * the channel's strict request schema (as it does for the web host) before anything runs, and
 * answers with its typed reply. Returns the unregistration.
 */
export function registerIpcHandlers<E>(ipcMain: IpcMainLike<E>, service: MissionControlService, isTrustedSender: (event: E) => boolean): () => void {
  return registerTable(ipcMain, isTrustedSender, CHANNEL_NAMES, ipcChannelName, (channel, payload) => service.handle(channel, payload));
}

/**
 * The same for the Electron-only APP_CHANNELS, which have no service: the request is parsed here,
 * a thrown CitadelError becomes a typed refusal, and an answer outside the channel's response
 * schema an INTERNAL_ERROR, as the service does.
 */
export function registerAppIpcHandlers<E>(ipcMain: IpcMainLike<E>, handlers: AppChannelHandlers, isTrustedSender: (event: E) => boolean): () => void {
  return registerTable(ipcMain, isTrustedSender, APP_CHANNEL_NAMES, appIpcChannelName, async (channel, payload) => {
    const call = parseAppRequest(channel, payload);
    if (!call.ok) return refuse(call.error);
    const value = await (handlers[channel] as (request: unknown) => Promise<unknown>)(call.value.request);
    const response = APP_CHANNELS[channel].response.safeParse(value);
    if (!response.success) throw new CitadelError('INTERNAL_ERROR', `the "${channel}" answer did not match its schema`, { details: { channel } });
    return { ok: true, value: response.data };
  });
}

function registerTable<E, N extends string>(
  ipcMain: IpcMainLike<E>,
  isTrustedSender: (event: E) => boolean,
  channels: readonly N[],
  ipcName: (channel: N) => string,
  call: (channel: N, payload: unknown) => Promise<unknown>,
): () => void {
  for (const channel of channels) {
    ipcMain.handle(ipcName(channel), async (event, ...args) => {
      if (!isTrustedSender(event)) {
        return refuse(new CitadelError('IPC_SENDER_REFUSED', `"${channel}" was called from outside the app's own window`, { details: { channel } }));
      }
      if (args.length !== 1) return refuse(requestInvalid(channel, `"${channel}" takes exactly one request, got ${args.length}`));
      try {
        return await call(channel, args[0]);
      } catch (error) {
        // The service never throws by contract; anything that does still crosses as a typed value,
        // and its detail stays in the main process's log rather than reaching the renderer.
        if (!isCitadelError(error)) console.error(`citadel: the "${channel}" handler threw`, error);
        return refuse(isCitadelError(error) ? error : new CitadelError('INTERNAL_ERROR', `"${channel}" failed unexpectedly`, { details: { channel } }));
      }
    });
  }
  return () => channels.forEach((channel) => ipcMain.removeHandler(ipcName(channel)));
}

function refuse(error: CitadelError): Refusal {
  return { ok: false, error: error.toData() };
}
