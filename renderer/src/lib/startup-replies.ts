import type { ChannelName } from '../../../shared/ipc/contract';
import { listForksResponseParser } from './generated/startup-parsers';

/** What checking a reply answers: zod's own result shape, so a schema's `safeParse` is a check. */
export type CheckedReply = { success: true; data: unknown } | { success: false; error: { issues: readonly { message: string }[] } };

/** Checks one startup reply; `contractSchema` loads the channel's reply schema if the check needs it (and rejects if it cannot load). */
export type StartupCheck = (raw: unknown, contractSchema: () => Promise<{ safeParse(raw: unknown): CheckedReply }>) => CheckedReply | Promise<CheckedReply>;

const INVALID = Symbol.for('zod.compile.invalid');

/**
 * The replies Mission Control's first page (the fork list) checks without loading zod or the
 * contract (the first page's script is most of its wait: issue 14's first-render bench). A reply
 * `{ok:true,value}` whose value zod's compiled form of the channel's response schema passes
 * (generated ahead of time and committed; build/startup-parsers.ts says why) is answered here;
 * anything else, a typed error included, goes to the contract's own reply schema, loaded then, so
 * errors read the same. test/conformance/startup-parsers.test.ts holds both to contract.ts's table.
 */
export const STARTUP_REPLIES: Partial<Record<ChannelName, StartupCheck>> = {
  listForks: compiledFirst(listForksResponseParser),
};

function compiledFirst(compiled: (value: unknown) => unknown): StartupCheck {
  return (raw, contractSchema) => {
    if (isOkEnvelope(raw)) {
      const value = compiled(raw.value);
      if (value !== INVALID) return { success: true, data: { ok: true, value } };
    }
    return contractSchema().then((schema) => schema.safeParse(raw));
  };
}

/** Exactly the two keys of a success envelope; any doubt (an extra or inherited key) is left to the contract's schema. */
function isOkEnvelope(raw: unknown): raw is { ok: true; value: unknown } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const keys = Object.keys(raw);
  return keys.length === 2 && keys.includes('ok') && keys.includes('value') && (raw as { ok: unknown }).ok === true;
}
