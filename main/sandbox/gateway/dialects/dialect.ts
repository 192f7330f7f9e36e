import type { WireRefusal } from '../../../../shared/runtime/wire';

export type Json = Record<string, unknown>;

/** What the gateway knows of a request when its body is judged. */
export interface RequestContext {
  /** The request path without its query; null when unknown (then a model named only in the path is unknown). */
  readonly path: string | null;
  /** Whether a token budget is set: a request that would hide its usage from the witness is then refused. */
  readonly budgeted: boolean;
}

/** A dialect's reading of a request body: the model it names (as given, unchecked) or why it is refused. */
export type DialectBodyVerdict = { readonly refusal: WireRefusal | null; readonly model: unknown };

/** What an answer told the witness so far: the model it named, its usage, and whether it reached its completion. */
export interface AnswerSeen {
  readonly model: string | null;
  readonly input: number | null;
  readonly output: number | null;
  readonly completed: boolean;
}

/** Reads one answer of a dialect: each SSE event's data as it comes, or a whole JSON body. */
export interface AnswerReading {
  event(data: string): void;
  whole(body: Json): void;
  seen(): AnswerSeen;
}

/**
 * One provider API the gateway speaks (issue 28, issue 31): how a request names its route and model,
 * what in it would make the provider act beyond answering, and where its answer says which model
 * served it and what it used. The handler dispatches by the contract's `rule.api`.
 */
export interface GatewayDialect {
  /**
   * The route a request path is checked as: the path itself, or, for an API naming the model in the
   * path, the path with that segment written `{model}`; null when the path has that shape but its
   * model segment is no model name (another spelling would reach another resource).
   */
  routePath(path: string): string | null;
  /** Refuses a query string this API's routes do not take ('' when there is none), or null. */
  judgeQuery(path: string, query: string): WireRefusal | null;
  judgeBody(body: Json, context: RequestContext): DialectBodyVerdict;
  newAnswerReading(): AnswerReading;
  /** A refusal's body in the API's own error shape, so that the runtime shows the message. */
  errorBody(status: number, errorType: string, refusal: WireRefusal, message: string): unknown;
}

// Printable ASCII without spaces, bounded: a model name is recorded only when it cannot carry anything else.
const MODEL = /^[\x21-\x7e]{1,128}$/;

/** A model name as recorded: bounded printable text, else null. */
export function recordedModel(value: unknown): string | null {
  return typeof value === 'string' && MODEL.test(value) ? value : null;
}

/** A token count: a non-negative safe integer, else null. */
export function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

export function asObject(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

export function parseObject(text: string): Json | null {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return null;
  }
}

/** The same dialect behaviour for APIs that name the model in the body and take any query (Anthropic, OpenAI). */
export const pathIsRoute = (path: string): string => path;
export const anyQuery = (): null => null;

/** OpenAI's error shape, which OpenAI-compatible servers and clients share. */
export function openAiErrorBody(_status: number, errorType: string, refusal: WireRefusal, message: string): unknown {
  return { error: { type: errorType, code: refusal, message } };
}

/**
 * Whether anything below `roots` is an object `found` accepts; `skip(key, value)` leaves a member
 * unread (a tool call's arguments are the model's own, never content). Walked without recursion:
 * nesting without end must be answered, not overflow the stack.
 */
export function anyObject(roots: readonly unknown[], found: (entry: Json) => boolean, skip: (key: string) => boolean = () => false): boolean {
  const pending: unknown[] = [...roots];
  while (pending.length > 0) {
    const next = pending.pop();
    if (Array.isArray(next)) {
      pending.push(...(next as unknown[]));
      continue;
    }
    const entry = asObject(next);
    if (entry === null) continue;
    if (found(entry)) return true;
    for (const [key, value] of Object.entries(entry)) if (!skip(key)) pending.push(value);
  }
  return false;
}
