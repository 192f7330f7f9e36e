/**
 * The redaction gate for public artifacts (replay and proof report, decisions D12). The
 * exporter builds its document from an allowlist of fields, then calls `assertRedacted` on it
 * before writing anything; a hit refuses the export.
 *
 * API
 * - `scanForSecrets(value): Promise<RedactionHit[]>` scans every string in a JSON value, object
 *   keys included, and reports each hit as `{ path, rule }`, e.g.
 *   `{ path: '$.branches[0].model.observed', rule: 'citadel/model-provider-key' }`.
 *   Hits are in document order, one per (path, rule); a value JSON cannot carry faithfully
 *   (undefined, a function, a Date, a cycle…) is a `citadel/non-json` hit, so nothing unscanned
 *   can reach the serializer.
 * - `assertRedacted(value): Promise<void>` throws `CitadelError('REPLAY_REDACTION_VIOLATION')`
 *   with one `{ path, rule, message }` violation per hit.
 * - `REDACTION_RULE_IDS`: every rule id a hit can carry.
 *
 * Nothing reported ever holds the matched text or any part of it. A flagged object key is named
 * by its position among its object's keys, `$.model.<key#2>`, in its own path and in every path
 * beneath it; other keys appear by name.
 *
 * Rules
 * - The secretlint recommended preset (`@secretlint/secretlint-rule-*`: AWS, GitHub, Slack,
 *   npm, SendGrid, Shopify, OpenAI, Anthropic, Linear, 1Password, private keys, basic-auth and
 *   database URLs), run once per scan over all strings batched into one source text.
 * - Citadel's own (`citadel/*`, see citadel-rules.ts): PEM private-key armor, JWTs (header
 *   decodes to JSON with `alg`), model-provider keys (`sk-…`, `gsk_`, `hf_`, `xai-`, `pplx-`,
 *   `AIza…`), service tokens (GitLab, Stripe, Twilio, Bitbucket, Azure), credentials in URLs,
 *   absolute paths (POSIX, Windows drive, UNC, `file:`, `~/`), and long high-entropy tokens.
 *
 * False-positive guards: `sha256:<64 hex>` digests and fork ids are exempt from the entropy rule
 * by exact shape; a 40-hex commit id only as the whole value of a commit field (a key ending in
 * `commit` or `revision`), since a 40-hex token elsewhere (a model id, a key, a sentence) is a
 * GitHub classic or New Relic secret as likely as a commit id; tokens made of words, numbers and
 * versions (model ids, branch and profile ids, UPPER_SNAKE codes, timestamps) are not entropy or
 * prefix hits.
 */
import { CitadelError } from '../../../shared/errors';
import { CITADEL_RULE_IDS, CITADEL_RULES } from './citadel-rules';
import type { CitadelRuleId } from './citadel-rules';
import { collectStringSites, renderPath } from './json-string-sites';
import type { MemberStep, StringSite } from './json-string-sites';
import { SECRETLINT_RULE_IDS, secretlintHits } from './secretlint-batch';

/** One refused location. `rule` is one of `REDACTION_RULE_IDS`. */
export type RedactionHit = { readonly path: string; readonly rule: string };

export const REDACTION_RULE_IDS: readonly string[] = [...CITADEL_RULE_IDS, ...SECRETLINT_RULE_IDS];

const CITADEL_RULE_MESSAGES: Record<CitadelRuleId, string> = {
  'citadel/private-key': 'a private key block',
  'citadel/jwt': 'a JSON Web Token',
  'citadel/model-provider-key': 'a model-provider API key',
  'citadel/service-token': 'a cloud, VCS or service token',
  'citadel/url-credentials': 'a URL with embedded credentials',
  'citadel/absolute-path': 'a local filesystem path',
  'citadel/high-entropy': 'a long high-entropy token',
  'citadel/non-json': 'a value JSON cannot carry faithfully',
};

function ruleMessage(rule: string): string {
  const own = CITADEL_RULE_MESSAGES[rule as CitadelRuleId] as string | undefined;
  return own ?? `a secret matched by ${rule}`;
}

/** A field that carries a git object id by design: `result_commit`, `base_revision`, `commit`. */
const COMMIT_FIELD = /(?:^|_)(?:commit|revision)$/;
const COMMIT_ID = /^[0-9a-f]{40}$/;

/** Exactly a lowercase 40-hex id as the whole value of a commit field; nothing else is exempt. */
function isCommitIdInItsField({ text, path, keyOf }: StringSite): boolean {
  return keyOf === null && path?.step.kind === 'member' && COMMIT_FIELD.test(path.step.key) && COMMIT_ID.test(text);
}

export async function scanForSecrets(value: unknown): Promise<RedactionHit[]> {
  const { sites, nonJson } = collectStringSites(value);
  const found: { site: number; rule: string }[] = [];
  sites.forEach((site, index) => {
    if (isCommitIdInItsField(site)) return;
    for (const rule of CITADEL_RULES) if (rule.matches(site.text)) found.push({ site: index, rule: rule.id });
  });
  found.push(...(await secretlintHits(sites.map(({ text }) => text))));
  found.sort((a, b) => a.site - b.site || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));

  const hiddenKeys = new Set<MemberStep>();
  for (const { site } of found) {
    const keyOf = sites[site]?.keyOf;
    if (keyOf) hiddenKeys.add(keyOf);
  }
  const located = [
    ...found.map(({ site, rule }) => ({ path: renderPath(sites[site]?.path ?? null, hiddenKeys), rule })),
    ...nonJson.map((path) => ({ path: renderPath(path, hiddenKeys), rule: 'citadel/non-json' })),
  ];
  // A flagged key and its value render the same path; report such a pair once per rule.
  const seen = new Set<string>();
  return located.filter(({ path, rule }) => {
    const id = JSON.stringify([path, rule]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Paths named in the error message itself; every hit is in `violations`. */
const MESSAGE_PATH_LIMIT = 5;

export async function assertRedacted(value: unknown): Promise<void> {
  const hits = await scanForSecrets(value);
  if (hits.length === 0) return;
  const paths = [...new Set(hits.map(({ path }) => path))];
  const named = paths.slice(0, MESSAGE_PATH_LIMIT).join(', ');
  const more = paths.length > MESSAGE_PATH_LIMIT ? ` and ${paths.length - MESSAGE_PATH_LIMIT} more` : '';
  throw new CitadelError(
    'REPLAY_REDACTION_VIOLATION',
    `export refused, nothing written: secret-like value or local path at ${named}${more}`,
    { violations: hits.map(({ path, rule }) => ({ path, rule, message: `${ruleMessage(rule)} at ${path}` })) },
  );
}
