import type { z } from 'zod';
import type { CitadelErrorData } from '../../../shared/errors';
import type { ForkEvent } from '../../../shared/fork/events';
import type { AppChannelName, AppChannelRequest, AppReply } from '../../../shared/ipc/app-channels';
import type { ChannelName, ChannelRequest, Reply } from '../../../shared/ipc/contract';
import type { ContractSchemas } from './contract-schemas';
import { STARTUP_REPLIES, type CheckedReply, type StartupCheck } from './startup-replies';
import type { Transport } from './transport';

/**
 * Most of the script a first page would evaluate before it could show anything is zod and the
 * contract's schemas, and the first page checks one reply (issue 14's first-render bench). So the
 * startup channels' replies are checked by compiled parsers that come with the page
 * (startup-replies.ts) and the contract loads on its own: each other call sends first, then waits
 * for its reply's schema. Nothing is used unchecked; a reply or an event waits for its check.
 */
const loadContractSchemas = (): Promise<ContractSchemas> => import('./contract-schemas');

/** Where the client's schemas come from: tests pass their own loader to see a slow or failed load. */
export interface ClientSchemas {
  readonly startup: Partial<Record<ChannelName, StartupCheck>>;
  readonly load: () => Promise<ContractSchemas>;
}

/** The one typed client over the IPC contract that every view uses. */
export interface Client {
  call<C extends ChannelName>(channel: C, request: ChannelRequest<C>): Promise<Reply<C>>;
  /**
   * Only events that parse with the contract's event schema reach a listener. Subscribe before
   * reading the state the events update, and read it again in `onOpen` (see Transport.subscribe).
   */
  onEvent(listener: (event: ForkEvent) => void, onOpen?: () => void): () => void;
  /** An Electron-only app channel, or null when this shell lacks it and the caller must fall back. */
  app<C extends AppChannelName>(channel: C): ((request: AppChannelRequest<C>) => Promise<AppReply<C>>) | null;
}

type ErrorReply = { ok: false; error: CitadelErrorData };

export function createClient(transport: Transport, schemas: ClientSchemas = { startup: STARTUP_REPLIES, load: loadContractSchemas }): Client {
  let contract: Promise<ContractSchemas> | null = null;
  // A load that failed (a chunk the host could not serve) is asked for again by the next caller;
  // a browser that remembers the failed module answers the same until the window is reloaded.
  const schemasLoaded = (): Promise<ContractSchemas> =>
    (contract ??= schemas.load().catch((error: unknown) => {
      contract = null;
      throw error;
    }));
  // Once the first page has its answer, the rest of the contract loads while the operator reads it
  // (when the window is next idle, so not before the page has been drawn).
  let warmed = false;
  const warm = (): void => {
    if (warmed) return;
    warmed = true;
    const later = globalThis.requestIdleCallback ?? ((run: () => void) => setTimeout(run, 0));
    later(() => void schemasLoaded().catch(() => undefined));
  };
  const parsers = new Map<string, z.ZodType>();
  const schemaOf = async (name: string, make: (schemas: ContractSchemas) => z.ZodType): Promise<z.ZodType> => {
    const loaded = await schemasLoaded();
    const schema = parsers.get(name) ?? make(loaded);
    parsers.set(name, schema);
    return schema;
  };
  return {
    call<C extends ChannelName>(channel: C, request: ChannelRequest<C>): Promise<Reply<C>> {
      // The schema is the channel's reply schema, so a value that parses is exactly Reply<C>.
      const send = () => transport.call(channel, request);
      const contractSchema = () => schemaOf(channel, (c) => c.replySchema(channel));
      const startup = schemas.startup[channel];
      if (startup !== undefined) return parsedReply(channel, send, Promise.resolve((raw) => startup(raw, contractSchema))).finally(warm) as Promise<Reply<C>>;
      return parsedReply(channel, send, checkWith(contractSchema())) as Promise<Reply<C>>;
    },
    onEvent(listener, onOpen) {
      let subscribed = true;
      const unsubscribe = transport.subscribe((raw) => {
        // Every event waits on the same promise, so they reach the listener in the order they came.
        void schemasLoaded().then(
          ({ IpcEventSchema }) => {
            const parsed = IpcEventSchema.safeParse(raw);
            if (parsed.success && subscribed) listener(parsed.data);
          },
          // An event that could not be checked is a gap: the subscriber reads its state again.
          () => void (subscribed && onOpen?.()),
        );
      }, onOpen);
      return () => {
        subscribed = false;
        unsubscribe();
      };
    },
    app<C extends AppChannelName>(channel: C) {
      if (!transport.appChannels.has(channel)) return null;
      return (request: AppChannelRequest<C>) =>
        parsedReply(channel, () => transport.callApp(channel, request), checkWith(schemaOf(`app:${channel}`, (c) => c.appReplySchema(channel)))) as Promise<AppReply<C>>;
    },
  };
}

type ReplyCheck = (raw: unknown) => CheckedReply | Promise<CheckedReply>;

const checkWith = (schema: Promise<z.ZodType>): Promise<ReplyCheck> => schema.then((loaded) => (raw) => loaded.safeParse(raw));

/**
 * Every answer is checked before use; a failed transport or a malformed answer becomes a typed
 * error. `check` is already on its way (a schema loading) while the request is sent.
 */
async function parsedReply(channel: string, send: () => Promise<unknown>, check: Promise<ReplyCheck>): Promise<unknown> {
  // The request leaves before its schema has loaded; a transport that throws at once is a failed call too.
  const answer = new Promise<unknown>((resolve) => resolve(send()));
  // Its failure is reported below, once the answer is in; it must not surface as unhandled meanwhile.
  check.catch(() => undefined);
  let raw: unknown;
  try {
    raw = await answer;
  } catch (error) {
    return failure(`the ${channel} call did not complete: ${error instanceof Error ? error.message : String(error)}`, channel);
  }
  let parsed: CheckedReply;
  try {
    parsed = await (await check)(raw);
  } catch (error) {
    return failure(`the ${channel} reply could not be checked: the contract did not load (${error instanceof Error ? error.message : String(error)})`, channel);
  }
  if (parsed.success) return parsed.data;
  return failure(`the ${channel} reply does not match the contract: ${parsed.error.issues[0]?.message ?? 'invalid'}`, channel);
}

function failure(message: string, channel: string): ErrorReply {
  return { ok: false, error: { code: 'INTERNAL_ERROR', message, details: { channel } } };
}
