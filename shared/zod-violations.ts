import type { z } from 'zod';
import type { Violation } from './errors';
import { formatJsonPath } from './json-text';

/**
 * Maps zod issues to violations with stable rule codes; `input` is the value the issue paths are
 * relative to, `forbidden` names values refused for safety, by field then value, with the reason
 * each is refused (reported as `forbidden_value`).
 */
export function zodViolations(
  issues: readonly z.core.$ZodIssue[],
  at: readonly PropertyKey[],
  input: unknown,
  forbidden: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
): Violation[] {
  return issues.flatMap((issue): Violation[] => {
    const path = [...at, ...issue.path];
    const value = valueAt(input, issue.path);
    switch (issue.code) {
      case 'unrecognized_keys':
        return issue.keys.map((key) => violation([...path, key], 'unknown_field', `unknown field "${key}"`));
      case 'invalid_type':
        return value.found
          ? [violation(path, 'wrong_type', `expected ${issue.expected}, got ${describe(value.value)}`)]
          : [violation(path, 'missing_field', `${String(path[path.length - 1])} is required`)];
      case 'invalid_value': {
        if (!value.found) return [violation(path, 'missing_field', `${String(path[path.length - 1])} is required`)];
        const field = String(issue.path[issue.path.length - 1]);
        const reason = refusalOf(forbidden, field, value.value);
        if (reason !== undefined) return [violation(path, 'forbidden_value', `"${String(value.value)}" is refused: ${reason}`)];
        return [violation(path, 'invalid_value', `expected one of ${issue.values.map((x) => JSON.stringify(x)).join(', ')}`)];
      }
      case 'invalid_format':
        // A schema that names its format in words (its own message) is reported in those words, not as a regex.
        return [
          violation(
            path,
            'pattern_mismatch',
            issue.message.startsWith('Invalid') ? `${JSON.stringify(value.value)} does not match ${issue.pattern ?? issue.format}` : `${JSON.stringify(value.value)} is not ${issue.message}`,
          ),
        ];
      case 'too_small':
        return [violation(path, issue.origin === 'array' ? 'too_few_items' : 'too_small', sizeMessage(issue, 'at least'))];
      case 'too_big':
        return [violation(path, issue.origin === 'array' ? 'too_many_items' : 'too_big', sizeMessage(issue, 'at most'))];
      case 'custom': {
        const rule = typeof issue.params?.rule === 'string' ? issue.params.rule : 'invalid_value';
        return [violation(path, rule, issue.message)];
      }
      default:
        return [violation(path, 'invalid_value', issue.message)];
    }
  });
}

/** A size rule in words; a schema's own message (one not in zod's "Too small: …" wording) is kept. */
function sizeMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig, bound: 'at least' | 'at most'): string {
  if (!/^Too (small|big)\b/.test(issue.message)) return issue.message;
  const limit = Number('minimum' in issue ? issue.minimum : issue.maximum);
  const plural = (one: string, many: string) => `${limit} ${limit === 1 ? one : many}`;
  if (issue.origin === 'string') return limit === 1 && bound === 'at least' ? 'must not be empty' : `must have ${bound} ${plural('character', 'characters')}`;
  if (issue.origin === 'array' || issue.origin === 'set') return `must have ${bound} ${plural('entry', 'entries')}`;
  return issue.inclusive === false ? `must be ${bound === 'at least' ? 'more' : 'less'} than ${limit}` : `must be ${bound} ${limit}`;
}

/** Why a value is refused, if it is; own properties only, so `constructor` or `__proto__` is never a reason. */
function refusalOf(forbidden: Readonly<Record<string, Readonly<Record<string, string>>>>, field: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || !Object.hasOwn(forbidden, field)) return undefined;
  const reasons = forbidden[field];
  return reasons !== undefined && Object.hasOwn(reasons, value) ? reasons[value] : undefined;
}

export function violation(path: readonly PropertyKey[], rule: string, message: string): Violation {
  return { path: formatJsonPath(path), rule, message };
}

function valueAt(root: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, key)) {
      return { found: false, value: undefined };
    }
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value: current };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

