// jsonc-parser (VS Code's JSON parser) gives offsets for syntax errors and sees duplicate keys,
// which JSON.parse silently collapses.
import { printParseErrorCode, visit, type JSONVisitor, type ParseError } from 'jsonc-parser';
import type { Violation } from './errors';

export const MAX_JSON_FILE_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 32;

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; violation: Violation };

const violation = (rule: string, message: string): JsonTextResult => ({ ok: false, violation: { path: '$', rule, message } });

/**
 * Strict JSON for contract files: bounded size and depth, no comments or trailing commas,
 * no duplicate keys (a duplicate makes the meaning depend on the parser), one leading BOM tolerated.
 */
export function parseJsonText(input: string, limits: { maxBytes?: number; maxDepth?: number } = {}): JsonTextResult {
  const maxBytes = limits.maxBytes ?? MAX_JSON_FILE_BYTES;
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > maxBytes) return violation('file_too_large', `the file is ${bytes} bytes; at most ${maxBytes} are accepted`);
  if (text.trim() === '') return violation('empty_file', 'the file is empty; expected a JSON object');
  const depth = maxNestingDepth(text);
  if (depth === COMMENT_FOUND) return violation('json_syntax', 'not valid JSON: comments are not allowed');
  if (depth > maxDepth) return violation('too_deep', `the JSON nests ${depth} levels deep; at most ${maxDepth} are accepted`);

  const errors: ParseError[] = [];
  let duplicate: string | null = null;
  const keysStack: Set<string>[] = [];
  try {
    visitJson(text, {
      onObjectBegin: () => void keysStack.push(new Set()),
      onObjectEnd: () => void keysStack.pop(),
      onObjectProperty: (property, _offset, _length, startLine, startCharacter, pathSupplier) => {
        const keys = keysStack[keysStack.length - 1];
        if (keys?.has(property) && duplicate === null) {
          duplicate = `${formatJsonPath([...pathSupplier(), property])} (line ${startLine + 1}, column ${startCharacter + 1})`;
        }
        keys?.add(property);
      },
      onError: (error, offset, length) => void errors.push({ error, offset, length }),
    });
  } catch (error) {
    // Defence in depth: the depth pre-scan should make the recursive parser safe already.
    if (error instanceof RangeError) return violation('too_deep', 'the JSON nests too deeply');
    throw error;
  }
  const first = errors[0];
  if (first) {
    const { line, column } = lineAndColumn(text, first.offset);
    return violation('json_syntax', `not valid JSON: ${printParseErrorCode(first.error)} at line ${line}, column ${column}`);
  }
  if (duplicate !== null) return violation('duplicate_key', `duplicate key ${duplicate}`);
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return violation('json_syntax', `not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function visitJson(text: string, visitor: JSONVisitor): void {
  visit(text, visitor, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
}

const COMMENT_FOUND = -1;

/**
 * Deepest bracket nesting outside strings, found without recursion so hostile input cannot blow
 * the stack. A comment start outside a string returns COMMENT_FOUND: comments are invalid here, and
 * a quote inside one would otherwise desynchronise the string tracking from the real parser's.
 */
function maxNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '/') return COMMENT_FOUND;
    else if (c === '{' || c === '[') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return max;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1 };
}

/** `$.executors[1].adapter_options.sandbox`; keys that are not identifiers are quoted. */
export function formatJsonPath(segments: readonly PropertyKey[]): string {
  return segments.reduce<string>((path, segment) => {
    if (typeof segment === 'number') return `${path}[${segment}]`;
    const key = String(segment);
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
  }, '$');
}
