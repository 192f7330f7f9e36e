import type { z } from 'zod';
import { CitadelError, type CitadelErrorData, type Result, type Violation } from '../errors';
import { zodViolations } from '../zod-violations';
import { replyEnvelope } from './reply-envelope';

/** A table of channels: each name's strict request schema and the schema of the value it answers. */
export type ChannelTable = Readonly<Record<string, { readonly request: z.ZodType; readonly response: z.ZodType }>>;

export type NameOf<T extends ChannelTable> = keyof T & string;
export type RequestOf<T extends ChannelTable, C extends NameOf<T>> = z.infer<T[C]['request']>;
export type ResponseOf<T extends ChannelTable, C extends NameOf<T>> = z.infer<T[C]['response']>;
/** Every call's answer crosses as a typed value: the response, or an error with its stable code. */
export type ReplyOf<T extends ChannelTable, C extends NameOf<T>> = { ok: true; value: ResponseOf<T, C> } | { ok: false; error: CitadelErrorData };
/** What a preload exposes for a table: one named function per channel. */
export type BridgeOf<T extends ChannelTable> = { [C in NameOf<T>]: (request: RequestOf<T, C>) => Promise<ReplyOf<T, C>> };
/** A request that parsed, with the channel it is for. */
export type ParsedCall<T extends ChannelTable> = { [C in NameOf<T>]: { readonly channel: C; readonly request: RequestOf<T, C> } }[NameOf<T>];

/** The refusal of a request before anything runs; every IPC_REQUEST_INVALID of a channel call is made here. */
export function requestInvalid(channel: string, message: string, violations?: readonly Violation[]): CitadelError {
  return new CitadelError('IPC_REQUEST_INVALID', message, { ...(violations === undefined ? {} : { violations }), details: { channel } });
}

/**
 * Everything derived from a channel table, for the contract and the Electron-only app channels
 * alike: the names, the Electron IPC name under `prefix`, the reply schema, and the one parser of
 * requests, which every shell's input goes through.
 */
export function defineChannels<const T extends ChannelTable>(prefix: string, table: T) {
  type Name = NameOf<T>;
  /** Own names only: `toString` or `__proto__` are not channels. */
  const isChannelName = (name: string): name is Name => Object.hasOwn(table, name);
  // Every Name is an own key of the table (the index signature of ChannelTable says otherwise).
  const spec = <C extends Name>(channel: C) => table[channel] as T[C];
  return {
    table,
    names: Object.keys(table) as Name[],
    isChannelName,
    ipcName: (channel: Name): string => `${prefix}:${channel}`,
    // Typed as the channel's own reply: zod cannot see through the generic response schema.
    replySchema: <C extends Name>(channel: C) => replyEnvelope(spec(channel).response) as z.ZodType<ReplyOf<T, C>>,
    /** Untrusted input in; a name outside the table, or a request its schema refuses, is IPC_REQUEST_INVALID. */
    parseRequest(channel: string, payload: unknown): Result<ParsedCall<T>> {
      // Not the type guard: where Name is just string (a generic T), its false branch would be `never`.
      if (!Object.hasOwn(table, channel)) {
        const name = channel.slice(0, 64);
        return { ok: false, error: requestInvalid(name, `there is no channel named ${JSON.stringify(name)}`) };
      }
      const parsed = spec(channel as Name).request.safeParse(payload);
      if (!parsed.success) {
        return { ok: false, error: requestInvalid(channel, `the ${channel} request does not match its schema`, zodViolations(parsed.error.issues, [], payload)) };
      }
      return { ok: true, value: { channel: channel as Name, request: parsed.data } as ParsedCall<T> };
    },
  };
}
