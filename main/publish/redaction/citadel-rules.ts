import { hasHighEntropyToken, isWordStructured } from './token-entropy';

/**
 * Citadel's own redaction rules: shapes the secretlint recommended preset misses or only
 * catches in narrow forms (it wants an exact key length, or a `KEY=` context on the same line).
 * Each rule answers one question about one string, so a hit never needs to carry the match.
 */
export const CITADEL_RULE_IDS = [
  'citadel/private-key',
  'citadel/jwt',
  'citadel/model-provider-key',
  'citadel/service-token',
  'citadel/url-credentials',
  'citadel/absolute-path',
  'citadel/high-entropy',
  'citadel/non-json',
] as const;
export type CitadelRuleId = (typeof CITADEL_RULE_IDS)[number];

export type CitadelRule = { readonly id: CitadelRuleId; matches(text: string): boolean };

/** Any PEM private-key armor: PKCS#8, ENCRYPTED, RSA, EC, DSA, OPENSSH, PGP. The header alone is enough. */
const PRIVATE_KEY_ARMOR = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;

/** Three base64url segments whose first starts like a JSON object (`{` encodes to `ey`). */
const JWT_CANDIDATE = /(?<![A-Za-z0-9_-])(ey[A-Za-z0-9_-]{6,})\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;

function isJwtHeader(segment: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

/**
 * Vendor prefixes, each with the body that follows it. The body must not read as words, so a
 * profile or branch named `sk-learn-baseline` is not a key while `sk-` + 48 random chars is.
 * One alternation per rule, so each string is searched once per rule.
 */
function prefixedTokens(entries: readonly (readonly [prefix: string, body: string])[]): RegExp {
  const alternatives = entries.map(([prefix, body]) => `(?:${prefix})(${body})`).join('|');
  return new RegExp(`(?<![A-Za-z0-9_-])(?:${alternatives})`, 'g');
}

function hasUnstructuredBody(pattern: RegExp, text: string): boolean {
  for (const match of text.matchAll(pattern)) {
    const body = match.slice(1).find((group) => group !== undefined) ?? '';
    if (!isWordStructured(body)) return true;
  }
  return false;
}

const MODEL_PROVIDER_KEYS = prefixedTokens([
  ['sk-', '[A-Za-z0-9_-]{20,}'], // OpenAI (incl. sk-proj-, sk-svcacct-), Anthropic sk-ant-, DeepSeek, OpenRouter
  ['gsk_', '[A-Za-z0-9]{20,}'], // Groq
  ['hf_', '[A-Za-z0-9]{20,}'], // Hugging Face
  ['xai-', '[A-Za-z0-9]{20,}'], // xAI
  ['pplx-', '[A-Za-z0-9]{20,}'], // Perplexity
  ['AIza', '[A-Za-z0-9_-]{30,}'], // Google API keys (Gemini, GCP)
]);

const SERVICE_TOKENS = prefixedTokens([
  ['gl(?:pat|rt|dt)-', '[A-Za-z0-9_-]{20,}'], // GitLab personal, runner, deploy tokens
  ['(?:sk|rk)_(?:live|test)_', '[A-Za-z0-9]{16,}'], // Stripe secret and restricted keys
  ['SK|AC', '[0-9a-fA-F]{32}'], // Twilio API key and account SIDs
  ['ATBB', '[A-Za-z0-9_=.-]{24,}'], // Bitbucket app passwords
  ['AccountKey=|SharedAccessKey=|sig=', '[A-Za-z0-9%+/=]{20,}'], // Azure storage keys and SAS signatures
]);

/**
 * `scheme://user:password@` in any URL or connection string, with no placeholder exemptions. The
 * search starts at `://` and reads the scheme backwards, so each run of letters is read once: read
 * forwards from each of its letters, a long line without `://` took time quadratic in its length.
 */
const URL_CREDENTIALS = /:\/\/(?<=[A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/;

/**
 * Local filesystem locations. A `/` that starts a path is one not preceded by a name or path
 * character, which keeps URL paths (`https://host/a/b`), ratios (`3/4`) and git refs
 * (`citadel/fork-…/branch-…`) out.
 */
const ABSOLUTE_PATHS = [
  /(?<![A-Za-z0-9._~/\\-])\/(?:home|Users|root|tmp|var|etc|opt|usr|private|mnt|media|srv|Volumes|workspace|work)(?![A-Za-z0-9._-])/, // well-known roots, even alone
  /(?<![A-Za-z0-9._~/\\-])\/[A-Za-z0-9._@+-]+\/[A-Za-z0-9._@+~-]/, // any /x/y
  /(?<![A-Za-z0-9])[A-Za-z]:[\\/]/, // Windows drive: C:\ or C:/
  /(?<!\\)\\{2,}[A-Za-z0-9._$-]+\\+[A-Za-z0-9._$-]/, // UNC: \\server\share (from a run's first backslash: once per run)
  /\bfile:\//i, // file: URLs
  /(?<![A-Za-z0-9._~-])~(?:[A-Za-z_][A-Za-z0-9._-]*)?[\\/]/, // home-relative: ~/x, ~alice/x (not "~3/4")
];

export const CITADEL_RULES: readonly CitadelRule[] = [
  { id: 'citadel/private-key', matches: (text) => PRIVATE_KEY_ARMOR.test(text) },
  { id: 'citadel/jwt', matches: (text) => [...text.matchAll(JWT_CANDIDATE)].some((match) => isJwtHeader(match[1] ?? '')) },
  { id: 'citadel/model-provider-key', matches: (text) => hasUnstructuredBody(MODEL_PROVIDER_KEYS, text) },
  { id: 'citadel/service-token', matches: (text) => hasUnstructuredBody(SERVICE_TOKENS, text) },
  { id: 'citadel/url-credentials', matches: (text) => URL_CREDENTIALS.test(text) },
  { id: 'citadel/absolute-path', matches: (text) => ABSOLUTE_PATHS.some((pattern) => pattern.test(text)) },
  { id: 'citadel/high-entropy', matches: hasHighEntropyToken },
];
