import { lintSource } from '@secretlint/core';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import { CitadelError } from '../../../shared/errors';

type LintConfig = Parameters<typeof lintSource>[0]['options']['config'];

/**
 * The comment filter honours `secretlint-disable` text inside the scanned content. In a replay
 * that text is data, and one string saying it would mute every string after it in the batch.
 * It cannot be switched off through the preset (@secretlint/core 11.7.1 ignores `disabled` on a
 * preset's rules), so the preset's scanners are registered one by one, without it.
 */
const COMMENT_FILTER_ID = '@secretlint/secretlint-rule-filter-comments';

const scanners = recommendedRules.filter((rule) => rule.meta.id !== COMMENT_FILTER_ID);

/** The secretlint rule ids a hit can carry: the recommended preset's scanners. */
export const SECRETLINT_RULE_IDS: readonly string[] = scanners.map((rule) => rule.meta.id);

const CONFIG: LintConfig = {
  rules: scanners.map((rule) =>
    // Access key ids (AKIA…) are off by default in the AWS rule; a replay has no use for one.
    rule.meta.id === '@secretlint/secretlint-rule-aws' ? { id: rule.meta.id, rule, options: { enableIDScanRule: true } } : { id: rule.meta.id, rule },
  ),
};

/**
 * Between strings: no secretlint pattern crosses it. Patterns that accept whitespace reject NUL,
 * and patterns that accept NUL (negated classes) reject the newlines around it. It also opens
 * the batch, so the content never starts with a BOM that secretlint would strip, shifting offsets.
 */
const SEPARATOR = '\n\u0000\n';

export type SecretlintHit = { readonly site: number; readonly rule: string };

/**
 * Lints all strings as one source text (one lint call per export instead of one per string) and
 * maps each reported range back to the string it starts in.
 */
export async function secretlintHits(texts: readonly string[]): Promise<SecretlintHit[]> {
  const starts: number[] = [];
  let content = '';
  for (const text of texts) {
    content += SEPARATOR;
    starts.push(content.length);
    content += text;
  }
  const result = await lintSource({
    source: { content, filePath: 'replay.txt', contentType: 'text' },
    // maskSecrets keeps the match out of secretlint's own messages; they are not used, but never hold a secret.
    options: { config: CONFIG, maskSecrets: true, noPhysicFilePath: true },
  });
  return result.messages.map((message) => ({ site: siteAt(starts, texts, message.range[0]), rule: message.ruleId }));
}

/** The string whose span holds `offset`; an offset in a separator means the mapping is broken, so fail. */
function siteAt(starts: readonly number[], texts: readonly string[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if ((starts[mid] as number) <= offset) low = mid;
    else high = mid - 1;
  }
  const start = starts[low];
  const text = texts[low];
  if (start === undefined || text === undefined || offset < start || offset >= start + text.length) {
    throw new CitadelError('INTERNAL_ERROR', 'secretlint reported a range outside every scanned string');
  }
  return low;
}
