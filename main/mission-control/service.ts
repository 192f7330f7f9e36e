import type { ForkEvent } from '../../shared/fork/events';
import { IPC_CHANNELS, parseChannelRequest, type ChannelName, type ChannelResponse, type Reply } from '../../shared/ipc/contract';
import type { OrchestratorContext } from '../host/context';
import { createBackgroundDrives } from './background-drives';
import { channelHandlers } from './channel-handlers';
import { errorReply } from './error-reply';
import { createEventHub } from './event-hub';
import { watchOutsideChanges, type OutsideChangeWatch } from '../orchestrator/index';

/**
 * What every shell of Mission Control (Electron IPC handlers, the loopback web host) calls: one
 * dispatcher over the IPC contract. `handle` takes untrusted input, parses it with the channel's
 * request schema, calls one orchestrator function and returns the typed reply; it never throws.
 * A channel name that is not in the contract (a URL path, a stale preload) is refused as a typed
 * error too, so one entry point serves typed and untyped callers alike.
 */
export interface MissionControlService {
  handle<C extends ChannelName>(channel: C, payload: unknown): Promise<Reply<C>>;
  handle(channel: string, payload: unknown): Promise<Reply<ChannelName>>;
  subscribe(listener: (event: ForkEvent) => void): () => void;
}

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
  const hub = createEventHub((error) => {
    log(`an event subscriber threw and was unsubscribed: ${String(error)}`);
    stopWatchingWhenUnheard();
  });
  // Changes other processes make to the fork root, watched while anyone listens (outside-changes.ts).
  let outside: OutsideChangeWatch | null = null;
  function stopWatchingWhenUnheard(): void {
    if (hub.size() > 0) return;
    outside?.stop();
    outside = null;
  }
  const engine: OrchestratorContext = {
    ...ctx,
    events: (event) => {
      ctx.events(event);
      outside?.saw(event);
      hub.publish(event);
    },
  };
  const drives = createBackgroundDrives(engine, log);
  const subscribe = (listener: (event: ForkEvent) => void): (() => void) => {
    const unsubscribe = hub.subscribe(listener);
    outside ??= watchOutsideChanges(ctx, { publish: (event) => hub.publish(event), drivenHere: () => drives.running() });
    return () => {
      unsubscribe();
      stopWatchingWhenUnheard();
    };
  };
  const handlers = channelHandlers(engine, drives);

  // Typed callers can still be handed a bad name at run time (a cast, a stale preload, a URL path).
  function handle<C extends ChannelName>(channel: C, payload: unknown): Promise<Reply<C>>;
  function handle(channel: string, payload: unknown): Promise<Reply<ChannelName>>;
  async function handle(channel: string, payload: unknown): Promise<Reply<ChannelName>> {
    // The one place a contract request is parsed: the Electron IPC handlers and the web host pass it on as it came.
    const call = parseChannelRequest(channel, payload);
    if (!call.ok) return errorReply(call.error, log);
    const { channel: name, request } = call.value;
    let value: unknown;
    try {
      value = await (handlers[name] as (request: unknown) => Promise<unknown>)(request);
    } catch (error) {
      return errorReply(error, log);
    }
    const response = IPC_CHANNELS[name].response.safeParse(value);
    if (!response.success) {
      log(`the ${name} response failed its schema at ${response.error.issues.map((issue) => issue.path.join('.') || '$').join(', ')}`);
      return { ok: false, error: { code: 'INTERNAL_ERROR', message: `internal error: the ${name} response did not match its schema` } };
    }
    return { ok: true, value: response.data as ChannelResponse<ChannelName> };
  }

  return {
    handle,
    subscribe,
    runningForks: () => drives.running(),
    drained: () => drives.drained(),
  };
}
