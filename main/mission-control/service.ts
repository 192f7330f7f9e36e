import type { ForkEvent } from '../../shared/fork/events';
import { CitadelError } from '../../shared/errors';
import { IPC_CHANNELS, type ChannelName, type ChannelResponse, type Reply } from '../../shared/ipc/contract';
import type { OrchestratorContext } from '../orchestrator/context';
import { createBackgroundDrives } from './background-drives';
import { isChannelName } from './channel-name';
import { channelHandlers } from './channel-handlers';
import { errorReply, requestInvalid } from './error-reply';
import { createEventHub } from './event-hub';
import type { MissionControlService } from './service-interface';

export interface MissionControlOptions {
  /** Where the service reports what no reply carries: a background drive that failed, an internal error. */
  readonly log?: (line: string) => void;
}

export interface MissionControl extends MissionControlService {
  /** Forks whose run is still being collected in the background after `startFork` returned. */
  runningForks(): readonly string[];
  /** Resolves once every background run started so far has ended. */
  drained(): Promise<void>;
}

/**
 * The one dispatcher every Mission Control shell calls. The orchestrator runs with an event sink
 * that still reaches `ctx.events` and also fans out to subscribers. Every request is parsed with
 * its channel's schema and every answer checked against the response schema before it leaves:
 * a reply that fails its own schema is an INTERNAL_ERROR, never unvalidated data.
 */
export function createMissionControlService(ctx: OrchestratorContext, options: MissionControlOptions = {}): MissionControl {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const hub = createEventHub((error) => log(`an event subscriber threw and was unsubscribed: ${String(error)}`));
  const engine: OrchestratorContext = {
    ...ctx,
    events: (event) => {
      ctx.events(event);
      hub.publish(event);
    },
  };
  const drives = createBackgroundDrives(engine, log);
  const handlers = channelHandlers(engine, drives);

  async function call<C extends ChannelName>(channel: C, payload: unknown): Promise<Reply<C>> {
    const spec = IPC_CHANNELS[channel];
    const request = spec.request.safeParse(payload);
    if (!request.success) return errorReply(requestInvalid(channel, request.error.issues, payload), log);
    let value: unknown;
    try {
      value = await (handlers[channel] as (request: unknown) => Promise<unknown>)(request.data);
    } catch (error) {
      return errorReply(error, log);
    }
    const response = spec.response.safeParse(value);
    if (!response.success) {
      log(`the ${channel} response failed its schema at ${response.error.issues.map((issue) => issue.path.join('.') || '$').join(', ')}`);
      return { ok: false, error: { code: 'INTERNAL_ERROR', message: `internal error: the ${channel} response did not match its schema` } };
    }
    return { ok: true, value: response.data as ChannelResponse<C> };
  }

  const unknownChannel = (channel: string) =>
    errorReply(new CitadelError('IPC_REQUEST_INVALID', `there is no channel named ${JSON.stringify(channel.slice(0, 64))}`, { details: { channel: channel.slice(0, 64) } }), log);

  // Typed callers can still be handed a bad name at run time (a cast, a stale preload, a URL path).
  function handle<C extends ChannelName>(channel: C, payload: unknown): Promise<Reply<C>>;
  function handle(channel: string, payload: unknown): Promise<Reply<ChannelName>>;
  function handle(channel: string, payload: unknown): Promise<Reply<ChannelName>> {
    return isChannelName(channel) ? call(channel, payload) : Promise.resolve(unknownChannel(channel));
  }

  return {
    handle,
    subscribe: (listener: (event: ForkEvent) => void) => hub.subscribe(listener),
    runningForks: () => drives.running(),
    drained: () => drives.drained(),
  };
}
