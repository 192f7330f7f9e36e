import type { z } from 'zod';
import { CitadelError, isCitadelError, type CitadelErrorData } from '../../shared/errors';
import { APP_CHANNEL_NAMES, APP_CHANNELS, appIpcChannelName, type AppChannelName, type AppChannelRequest, type AppChannelResponse } from '../../shared/ipc/app-channels';
import { CHANNEL_NAMES, IPC_CHANNELS, ipcChannelName } from '../../shared/ipc/contract';
import { zodViolations } from '../../shared/zod-violations';
import type { MissionControlService } from '../mission-control/service-interface';

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
 * untrusted sender, takes exactly one argument, parses it with the channel's strict request
 * schema (dropping bad input before the service sees it) and answers with the service's typed
 * reply. Returns the unregistration.
 */
export function registerIpcHandlers<E>(ipcMain: IpcMainLike<E>, service: MissionControlService, isTrustedSender: (event: E) => boolean): () => void {
  return registerTable(ipcMain, isTrustedSender, CHANNEL_NAMES, ipcChannelName, (channel) => IPC_CHANNELS[channel].request, (channel, request) =>
    service.handle(channel, request),
  );
}

/**
 * The same for the Electron-only APP_CHANNELS. A thrown CitadelError becomes a typed refusal, and
 * an answer outside the channel's response schema an INTERNAL_ERROR, as the service does.
 */
export function registerAppIpcHandlers<E>(ipcMain: IpcMainLike<E>, handlers: AppChannelHandlers, isTrustedSender: (event: E) => boolean): () => void {
  return registerTable(ipcMain, isTrustedSender, APP_CHANNEL_NAMES, appIpcChannelName, (channel) => APP_CHANNELS[channel].request, async (channel, request) => {
    const value = await (handlers[channel] as (request: unknown) => Promise<unknown>)(request);
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
  requestSchema: (channel: N) => z.ZodType,
  call: (channel: N, request: unknown) => Promise<unknown>,
): () => void {
  for (const channel of channels) {
    ipcMain.handle(ipcName(channel), async (event, ...args) => {
      if (!isTrustedSender(event)) {
        return refuse(new CitadelError('IPC_SENDER_REFUSED', `"${channel}" was called from outside the app's own window`, { details: { channel } }));
      }
      if (args.length !== 1) {
        return refuse(new CitadelError('IPC_REQUEST_INVALID', `"${channel}" takes exactly one request, got ${args.length}`, { details: { channel } }));
      }
      const parsed = requestSchema(channel).safeParse(args[0]);
      if (!parsed.success) {
        return refuse(
          new CitadelError('IPC_REQUEST_INVALID', `the "${channel}" request is invalid`, {
            violations: zodViolations(parsed.error.issues, [], args[0]),
            details: { channel },
          }),
        );
      }
      try {
        return await call(channel, parsed.data);
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
