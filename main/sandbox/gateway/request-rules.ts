import type { WireRefusal } from '../../../shared/runtime/wire';
import type { GatewayApi } from '../../../shared/sandbox/containment-policy';
import { asObject, recordedModel, type RequestContext } from './dialects/dialect';
import { DIALECTS } from './dialects/dialects';

export type BodyVerdict = { readonly allowed: true; readonly requestedModel: string | null } | { readonly allowed: false; readonly refusal: WireRefusal; readonly requestedModel: string | null };

/**
 * Checks a request body the gateway is about to forward (already parsed JSON): nothing in it may make
 * the provider act beyond answering (each dialect says what would: server-side tools, connectors,
 * content fetched from a URL, a background response), and the model it names (in the body, or in
 * the path for Gemini) must be one of `models` (null: any).
 */
export function judgeRequestBody(api: GatewayApi, body: unknown, models: readonly string[] | null, context: RequestContext = { path: null, budgeted: false }): BodyVerdict {
  const request = asObject(body);
  if (request === null) return { allowed: false, refusal: 'body_unparsable', requestedModel: null };
  const verdict = DIALECTS[api].judgeBody(request, context);
  const requestedModel = recordedModel(verdict.model);
  if (verdict.refusal !== null) return { allowed: false, refusal: verdict.refusal, requestedModel };
  if (models !== null && (typeof verdict.model !== 'string' || !models.includes(verdict.model))) return { allowed: false, refusal: 'model_not_allowed', requestedModel };
  return { allowed: true, requestedModel };
}

/**
 * Whether some object in JSON `text` (already parsed: it is valid) names a key twice. JSON.parse
 * keeps the last; a provider's parser may keep the first and read a tool or model the rules never saw.
 */
export function hasDuplicateKey(text: string): boolean {
  const objects: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0x7b) objects.push(new Set());
    else if (code === 0x5b) objects.push(null);
    else if (code === 0x7d || code === 0x5d) objects.pop();
    else if (code === 0x22) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      let after = end + 1;
      while (/\s/.test(text.charAt(after))) after += 1;
      const keys = objects.at(-1);
      if (text.charCodeAt(after) === 0x3a && keys !== null && keys !== undefined) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (keys.has(key)) return true;
        keys.add(key);
      }
      i = end;
    }
  }
  return false;
}
