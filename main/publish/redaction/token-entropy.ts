/**
 * The generic high-entropy check: finds long token-like runs that look random rather than
 * made of words. Calibrated against random tokens (base64, base62, base36, hex; 24 to 64 chars)
 * and the identifiers a replay legitimately carries (model ids, failure codes, branch ids).
 */

/** A run of token characters this long or longer is a candidate (shorter runs carry too few bits). */
const MIN_TOKEN_LENGTH = 24;

/**
 * Bits per character a candidate must reach. Hex-only runs draw on 16 symbols, so their
 * ceiling is 4 bits; random 24-char hex is above 2.8 in 99.9% of draws. Other random runs of
 * 24 chars (base36 and up) are above 3.4 in 99.9% of draws, while placeholders and padding
 * ("xxxx…", "0000…", "====…") stay far below either.
 */
const HEX_ENTROPY_MIN = 2.8;
const TOKEN_ENTROPY_MIN = 3.4;

/**
 * The only high-entropy shapes exempted wherever they appear: a content digest and a fork id
 * (`fork-` + 26 lowercase Crockford base32). Hex in general is not exempt: a bare 40-hex string
 * is a GitHub classic or New Relic token as often as a commit id (secret-scan.ts exempts a
 * commit id only in a commit field), and a bare 64-hex string is an Ethereum private key.
 */
const EXEMPT_SHAPES = /(?<![A-Za-z0-9])(?:sha256:[0-9a-f]{64}|fork-[0-9a-hjkmnp-tv-z]{26})(?![A-Za-z0-9])/g;

const TOKEN_RUN = new RegExp(`[A-Za-z0-9+/=_-]{${MIN_TOKEN_LENGTH},}`, 'g');
const HEX_ONLY = /^[0-9a-fA-F]+$/;
const PIECE_SEPARATORS = /[-_+/=]/;

/**
 * A piece between separators that reads as a word, a number or a version, not as random text.
 * Pieces of up to 5 chars always pass ("q8", "8x22b", "a3b"): a random token without
 * separators is one long piece, so this leniency does not admit it.
 */
const WORD_PIECE = new RegExp(
  '^(?:' +
    [
      '.{0,5}',
      '[0-9]{1,14}', // dates and version numbers: 20250929
      '[0-9]{1,6}[A-Za-z]{1,2}', // sizes: 405b, 128k
      '[a-z]{1,20}[0-9]{0,4}[a-z]?', // sonnet, qwen3, gpt4o
      '[A-Z]{1,20}[0-9]{0,4}', // GPTQ, EXECUTOR
      '[A-Z][a-z]{1,20}[0-9]{0,4}', // Instruct, Int8
      '[a-z]{2,}(?:[A-Z][a-z]{2,})+[0-9]{0,4}', // camelCase words
      '(?:[A-Z][a-z]{2,}){2,}[0-9]{0,4}', // PascalCase words
    ].join('|') +
    ')$',
);

/** Shannon entropy in bits per character. */
export function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  const length = [...text].length;
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** True when every separator-delimited piece of the token reads as a word, number or version. */
export function isWordStructured(token: string): boolean {
  return token.split(PIECE_SEPARATORS).every((piece) => WORD_PIECE.test(piece));
}

function isRandomLooking(run: string): boolean {
  if (isWordStructured(run)) return false;
  return shannonEntropy(run) >= (HEX_ONLY.test(run) ? HEX_ENTROPY_MIN : TOKEN_ENTROPY_MIN);
}

/** True when the text holds a long token that looks random, outside the exempt shapes. */
export function hasHighEntropyToken(text: string): boolean {
  // Blank the exempt shapes (never join the text around them) so what is left is judged alone.
  const rest = text.replace(EXEMPT_SHAPES, ' ');
  for (const [run] of rest.matchAll(TOKEN_RUN)) {
    if (isRandomLooking(run)) return true;
  }
  return false;
}
