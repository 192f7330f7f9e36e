// Property/fuzz tests for the executor-file validator (spec/executor-profiles.md, "Executor file schema 1").
// The oracle is the spec itself: grammars and enums below are restated from it, not imported from the source.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parseExecutorFileText, validateExecutorFile } from '../../shared/executors/validate-executor-file';
import { ExecutorFileSchema, type ExecutorFile, type ExecutorProfile } from '../../shared/executors/profile-schema';
import { canonicalProfileOrder, executorSetDigest, profileDigest } from '../../shared/executors/executor-digests';
import type { Result } from '../../shared/errors';

// ---------------------------------------------------------------------------------------------------------------
// Contract, restated from the spec

const PROFILE_ID = /^[a-z][a-z0-9-]{0,47}$/;
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
const PERMISSION_MODES = ['acceptEdits', 'auto', 'manual', 'dontAsk', 'plan'] as const;
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
const SANDBOXES = ['read-only', 'workspace-write'] as const;
const PROVIDERS = ['ollama', 'lmstudio'] as const;
const TOP_FIELDS = ['schema_version', 'executors'] as const;
const PROFILE_FIELDS = ['profile_id', 'runtime', 'model', 'local_provider', 'adapter_options'] as const;
const CLAUDE_OPTIONS = ['permission_mode', 'effort'] as const;
const CODEX_OPTIONS = ['sandbox'] as const;

/** Every rule code a violation may carry (validator rules plus the JSON-text rules). */
const KNOWN_RULES = new Set([
  'wrong_type',
  'unknown_field',
  'missing_field',
  'unsupported_schema_version',
  'too_few_profiles',
  'duplicate_profile_id',
  'provider_requires_codex',
  'provider_requires_model',
  'option_for_other_runtime',
  'forbidden_value',
  'invalid_value',
  'pattern_mismatch',
  'json_syntax',
  'duplicate_key',
  'too_deep',
  'file_too_large',
  'empty_file',
]);

/** `$`, `.identifier`, `[index]` or `["quoted key"]` segments. */
const JSON_PATH = /^\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*$/;

// ---------------------------------------------------------------------------------------------------------------
// Helpers

type Seg = string | number;
type JsonObj = Record<string, unknown>;

const isObj = (value: unknown): value is JsonObj => typeof value === 'object' && value !== null && !Array.isArray(value);
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Own-property write that also works for keys such as `__proto__`. */
function setOwn(target: JsonObj, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The spec's path notation, e.g. `$.executors[1].model`; non-identifier keys are JSON-quoted. */
function jsonPath(...segs: Seg[]): string {
  return segs.reduce<string>((path, seg) => {
    if (typeof seg === 'number') return `${path}[${seg}]`;
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(seg) ? `${path}.${seg}` : `${path}[${JSON.stringify(seg)}]`;
  }, '$');
}

const within = (path: string, scope: string): boolean =>
  path === scope || path.startsWith(`${scope}.`) || path.startsWith(`${scope}[`);

/** Deterministic picker over fast-check-generated numbers, so shuffles shrink and replay. */
function picker(rnd: readonly number[]): (n: number) => number {
  let i = 0;
  return (n) => (rnd.length === 0 ? 0 : (rnd[i++ % rnd.length] ?? 0) % n);
}

function shuffle<T>(items: readonly T[], pick: (n: number) => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = pick(i + 1);
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}

/** Rebuilds every object with its keys inserted in a shuffled order. */
function reorderKeys(value: unknown, pick: (n: number) => number): unknown {
  if (Array.isArray(value)) return value.map((item) => reorderKeys(item, pick));
  if (!isObj(value)) return value;
  const out: JsonObj = {};
  for (const key of shuffle(Object.keys(value), pick)) setOwn(out, key, reorderKeys(value[key], pick));
  return out;
}

interface Digests {
  set: string;
  profiles: Record<string, string>;
  order: string[];
}

function digestsOf(file: ExecutorFile): Digests {
  return {
    set: executorSetDigest(file.executors),
    profiles: Object.fromEntries(file.executors.map((p) => [p.profile_id, profileDigest(p)])),
    order: canonicalProfileOrder(file.executors).map((p) => p.profile_id),
  };
}

/** Schema verdict on plain JSON.parse of the same text. */
function schemaAccepts(text: string): boolean {
  return ExecutorFileSchema.safeParse(JSON.parse(text)).success;
}

/**
 * The outcome contract for any input: either ok (and then strict-schema valid with stable, order-free digests),
 * or EXECUTOR_FILE_INVALID with at least one well-formed violation.
 */
function expectWellFormed(result: Result<ExecutorFile>): void {
  if (result.ok) {
    expect(ExecutorFileSchema.safeParse(result.value).success).toBe(true);
    const first = digestsOf(result.value);
    expect(digestsOf(result.value)).toEqual(first);
    expect(executorSetDigest([...result.value.executors].reverse())).toBe(first.set);
    expect(first.order).toEqual(result.value.executors.map((p) => p.profile_id).sort());
    return;
  }
  expect(result.error.code).toBe('EXECUTOR_FILE_INVALID');
  const violations = result.error.violations ?? [];
  expect(violations.length).toBeGreaterThan(0);
  for (const violation of violations) {
    expect(violation.path.startsWith('$')).toBe(true);
    expect(violation.path).toMatch(JSON_PATH);
    expect(typeof violation.rule).toBe('string');
    expect(violation.rule.length).toBeGreaterThan(0);
    expect(KNOWN_RULES.has(violation.rule), `unexpected rule ${violation.rule}`).toBe(true);
    expect(violation.message.length).toBeGreaterThan(0);
  }
}

function violationsOf(result: Result<ExecutorFile>): { path: string; rule: string }[] {
  if (result.ok) return [];
  return (result.error.violations ?? []).map(({ path, rule }) => ({ path, rule }));
}

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries: valid files

const profileIdArb = fc.stringMatching(PROFILE_ID);
const modelArb = fc.stringMatching(MODEL_ID);

const claudeProfileArb: fc.Arbitrary<ExecutorProfile> = fc.record(
  {
    profile_id: profileIdArb,
    runtime: fc.constant('claude' as const),
    model: fc.option(modelArb, { nil: null }),
    local_provider: fc.constant(null),
    adapter_options: fc.record(
      { permission_mode: fc.constantFrom(...PERMISSION_MODES), effort: fc.constantFrom(...EFFORTS) },
      { requiredKeys: [], noNullPrototype: true },
    ),
  },
  { noNullPrototype: true },
);

const codexOptionsArb = fc.record({ sandbox: fc.constantFrom(...SANDBOXES) }, { requiredKeys: [], noNullPrototype: true });

const codexProfileArb: fc.Arbitrary<ExecutorProfile> = fc.oneof(
  fc.record(
    {
      profile_id: profileIdArb,
      runtime: fc.constant('codex' as const),
      model: fc.option(modelArb, { nil: null }),
      local_provider: fc.constant(null),
      adapter_options: codexOptionsArb,
    },
    { noNullPrototype: true },
  ),
  fc.record(
    {
      profile_id: profileIdArb,
      runtime: fc.constant('codex' as const),
      model: modelArb,
      local_provider: fc.constantFrom(...PROVIDERS),
      adapter_options: codexOptionsArb,
    },
    { noNullPrototype: true },
  ),
);

const validFileArb: fc.Arbitrary<ExecutorFile> = fc.record(
  {
    schema_version: fc.constant(1 as const),
    executors: fc.uniqueArray(fc.oneof(claudeProfileArb, codexProfileArb), {
      minLength: 2,
      maxLength: 6,
      selector: (p) => p.profile_id,
    }),
  },
  { noNullPrototype: true },
);

const rndArb = fc.array(fc.nat(), { minLength: 24, maxLength: 24 });

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries: mutations

/** Keys inherited from Object.prototype have their own regression test below. */
const unknownKeyArb = (reserved: readonly string[]): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.constantFrom('Model', 'profileId', 'env', 'command', 'args', 'shell', 'executable', 'hooks', 'cwd', ' effort', 'sandbox ', 'a.b', 'x[0]', '$', ''),
    )
    .filter((key) => !reserved.includes(key) && !(key in Object.prototype));

const interestingValueArb: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
  {
    arbitrary: fc.constantFrom<unknown>(
      null, 0, 1, 2, -1, 1.5, 1e308, true, false, '', '1', {}, [], [{}],
      'claude', 'codex', 'ollama', 'lmstudio', 'vllm', 'acceptEdits', 'bypassPermissions', 'danger-full-access',
      'read-only', 'workspace-write', 'high', 'ultra', 'Claude', 'a', 'A', '-a', 'gpt 5', '../../etc/passwd',
    ),
    weight: 3,
  },
  { arbitrary: fc.oneof(claudeProfileArb, codexProfileArb), weight: 1 },
);

type GenericMutation =
  | { kind: 'delete'; at: number }
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'addKey'; at: number; key: string; value: unknown }
  | { kind: 'renameKey'; at: number; key: string }
  | { kind: 'duplicateElement'; at: number }
  | { kind: 'truncateArray'; at: number; length: number }
  | { kind: 'wrap' };

const genericMutationArb: fc.Arbitrary<GenericMutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: interestingValueArb }),
  fc.record({ kind: fc.constant('addKey' as const), at: fc.nat(), key: unknownKeyArb([]), value: interestingValueArb }),
  fc.record({ kind: fc.constant('renameKey' as const), at: fc.nat(), key: unknownKeyArb([]) }),
  fc.record({ kind: fc.constant('duplicateElement' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('truncateArray' as const), at: fc.nat(), length: fc.nat({ max: 2 }) }),
  fc.constant({ kind: 'wrap' as const }),
);

interface Node {
  path: Seg[];
  value: unknown;
}

function nodesOf(value: unknown, path: Seg[] = [], out: Node[] = []): Node[] {
  out.push({ path, value });
  if (Array.isArray(value)) value.forEach((item, i) => nodesOf(item, [...path, i], out));
  else if (isObj(value)) for (const key of Object.keys(value)) nodesOf(value[key], [...path, key], out);
  return out;
}

function containerAt(root: unknown, path: readonly Seg[]): unknown {
  let current = root;
  for (const seg of path) current = Array.isArray(current) ? current[seg as number] : isObj(current) ? current[seg as string] : undefined;
  return current;
}

/** Replaces the node at `path` (root included) and returns the new root. */
function replaceAt(root: unknown, path: readonly Seg[], value: unknown): unknown {
  if (path.length === 0) return value;
  const parent = containerAt(root, path.slice(0, -1));
  const last = path[path.length - 1] as Seg;
  if (Array.isArray(parent)) parent[last as number] = value;
  else if (isObj(parent)) setOwn(parent, last as string, value);
  return root;
}

function applyGeneric(input: unknown, m: GenericMutation): unknown {
  const root = clone(input);
  if (m.kind === 'wrap') return [root];
  const all = nodesOf(root);
  const pickFrom = (nodes: Node[]): Node | undefined => (nodes.length === 0 ? undefined : nodes[m.at % nodes.length]);
  switch (m.kind) {
    case 'delete': {
      const node = pickFrom(all.filter((n) => n.path.length > 0));
      if (!node) return root;
      const parent = containerAt(root, node.path.slice(0, -1));
      const last = node.path[node.path.length - 1] as Seg;
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else if (isObj(parent)) delete parent[last as string];
      return root;
    }
    case 'replace': {
      const node = pickFrom(all);
      return node ? replaceAt(root, node.path, clone(m.value)) : root;
    }
    case 'addKey': {
      const node = pickFrom(all.filter((n) => isObj(n.value)));
      if (node && isObj(node.value)) setOwn(node.value, m.key, clone(m.value));
      return root;
    }
    case 'renameKey': {
      const node = pickFrom(all.filter((n) => n.path.length > 0 && typeof n.path[n.path.length - 1] === 'string'));
      if (!node) return root;
      const parent = containerAt(root, node.path.slice(0, -1));
      if (!isObj(parent)) return root;
      delete parent[node.path[node.path.length - 1] as string];
      setOwn(parent, m.key, node.value);
      return root;
    }
    case 'duplicateElement': {
      const node = pickFrom(all.filter((n) => Array.isArray(n.value) && n.value.length > 0));
      if (node && Array.isArray(node.value)) node.value.push(clone(node.value[m.at % node.value.length]));
      return root;
    }
    case 'truncateArray': {
      const node = pickFrom(all.filter((n) => Array.isArray(n.value)));
      if (node && Array.isArray(node.value)) node.value.length = Math.min(node.value.length, m.length);
      return root;
    }
  }
}

/** A mutation with a known consequence: `rule` must appear at exactly `path`, and nothing outside `scope`. */
interface Expectation {
  rule: string;
  path: string;
  scope: string;
}

type TargetedMutation =
  | { kind: 'bypassPermissions'; i: number }
  | { kind: 'dangerFullAccess'; i: number }
  | { kind: 'claudeProvider'; i: number; provider: string }
  | { kind: 'codexProviderNullModel'; i: number; provider: string }
  | { kind: 'duplicateId'; i: number; j: number }
  | { kind: 'claudeOptionOnCodex'; i: number; option: 'permission_mode' | 'effort' }
  | { kind: 'codexOptionOnClaude'; i: number }
  | { kind: 'unknownTopField'; key: string; value: unknown }
  | { kind: 'unknownProfileField'; i: number; key: string; value: unknown }
  | { kind: 'unknownOption'; i: number; key: string; value: unknown }
  | { kind: 'truncate'; length: number }
  | { kind: 'wrapInArray' }
  | { kind: 'missingProfileField'; i: number; field: (typeof PROFILE_FIELDS)[number] }
  | { kind: 'missingTopField'; field: (typeof TOP_FIELDS)[number] }
  | { kind: 'schemaVersion'; value: unknown }
  | { kind: 'badProfileId'; i: number; id: string }
  | { kind: 'badModel'; i: number; model: string }
  | { kind: 'badRuntime'; i: number; runtime: string }
  | { kind: 'badProvider'; i: number; provider: string }
  | { kind: 'badOptionValue'; i: number; value: string }
  | { kind: 'wrongType'; i: number; field: 'profile_id' | 'model' | 'adapter_options'; value: unknown };

const idx = fc.nat();
const nonStringArb = (allowNull: boolean): fc.Arbitrary<unknown> =>
  fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v !== 'string' && (allowNull || v !== null));
const nonObjectArb = fc.jsonValue({ maxDepth: 2 }).filter((v) => !isObj(v));

const targetedMutationArb: fc.Arbitrary<TargetedMutation> = fc.oneof(
  fc.record({ kind: fc.constant('bypassPermissions' as const), i: idx }),
  fc.record({ kind: fc.constant('dangerFullAccess' as const), i: idx }),
  fc.record({ kind: fc.constant('claudeProvider' as const), i: idx, provider: fc.constantFrom(...PROVIDERS) }),
  fc.record({ kind: fc.constant('codexProviderNullModel' as const), i: idx, provider: fc.constantFrom(...PROVIDERS) }),
  fc.record({ kind: fc.constant('duplicateId' as const), i: idx, j: idx }),
  fc.record({ kind: fc.constant('claudeOptionOnCodex' as const), i: idx, option: fc.constantFrom('permission_mode' as const, 'effort' as const) }),
  fc.record({ kind: fc.constant('codexOptionOnClaude' as const), i: idx }),
  fc.record({ kind: fc.constant('unknownTopField' as const), key: unknownKeyArb(TOP_FIELDS), value: interestingValueArb }),
  fc.record({ kind: fc.constant('unknownProfileField' as const), i: idx, key: unknownKeyArb(PROFILE_FIELDS), value: interestingValueArb }),
  fc.record({
    kind: fc.constant('unknownOption' as const),
    i: idx,
    key: unknownKeyArb([...CLAUDE_OPTIONS, ...CODEX_OPTIONS]),
    value: interestingValueArb,
  }),
  fc.record({ kind: fc.constant('truncate' as const), length: fc.constantFrom(0, 1) }),
  fc.constant({ kind: 'wrapInArray' as const }),
  fc.record({ kind: fc.constant('missingProfileField' as const), i: idx, field: fc.constantFrom(...PROFILE_FIELDS) }),
  fc.record({ kind: fc.constant('missingTopField' as const), field: fc.constantFrom(...TOP_FIELDS) }),
  fc.record({ kind: fc.constant('schemaVersion' as const), value: interestingValueArb.filter((v) => v !== 1) }),
  fc.record({ kind: fc.constant('badProfileId' as const), i: idx, id: fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('A', '1a', '-a', 'a_b', 'a'.repeat(49), 'a ')).filter((s) => !PROFILE_ID.test(s)) }),
  fc.record({ kind: fc.constant('badModel' as const), i: idx, model: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', '.a', 'a b', 'a/b', 'a'.repeat(129), 'a\n')).filter((s) => !MODEL_ID.test(s)) }),
  fc.record({ kind: fc.constant('badRuntime' as const), i: idx, runtime: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('Claude', 'CODEX', 'gpt', 'claude ')).filter((s) => s !== 'claude' && s !== 'codex') }),
  fc.record({ kind: fc.constant('badProvider' as const), i: idx, provider: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('Ollama', 'vllm', 'openai')).filter((s) => s !== 'ollama' && s !== 'lmstudio') }),
  fc.record({ kind: fc.constant('badOptionValue' as const), i: idx, value: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('yolo', 'Plan', 'full')) }),
  fc.record({
    kind: fc.constant('wrongType' as const),
    i: idx,
    field: fc.constantFrom('profile_id' as const, 'model' as const, 'adapter_options' as const),
    value: fc.boolean(),
  }).chain((m) =>
    (m.field === 'adapter_options' ? nonObjectArb : nonStringArb(m.field !== 'model')).map((value) => ({ ...m, value })),
  ),
);

type MutableProfile = JsonObj & { adapter_options: JsonObj };
type MutableFile = { schema_version: unknown; executors: MutableProfile[] };

function asClaude(p: MutableProfile): MutableProfile {
  const options: JsonObj = {};
  if (p.runtime === 'claude') for (const k of CLAUDE_OPTIONS) if (k in p.adapter_options) options[k] = p.adapter_options[k];
  return { profile_id: p.profile_id, runtime: 'claude', model: p.model, local_provider: null, adapter_options: options };
}

function asCodex(p: MutableProfile): MutableProfile {
  const options: JsonObj = {};
  if (p.runtime === 'codex' && 'sandbox' in p.adapter_options) options.sandbox = p.adapter_options.sandbox;
  const provider = p.runtime === 'codex' ? p.local_provider : null;
  return { profile_id: p.profile_id, runtime: 'codex', model: p.model, local_provider: provider, adapter_options: options };
}

function applyTargeted(file: ExecutorFile, m: TargetedMutation): { value: unknown; expect: Expectation } {
  const f = clone(file) as unknown as MutableFile;
  const n = f.executors.length;
  const i = 'i' in m ? m.i % n : 0;
  const at = (...segs: Seg[]): string => jsonPath('executors', i, ...segs);
  const scope = jsonPath('executors', i);
  const profile = f.executors[i] as MutableProfile;
  const put = (p: MutableProfile): MutableProfile => (f.executors[i] = p);
  switch (m.kind) {
    case 'bypassPermissions':
      put(asClaude(profile)).adapter_options.permission_mode = 'bypassPermissions';
      return { value: f, expect: { rule: 'forbidden_value', path: at('adapter_options', 'permission_mode'), scope } };
    case 'dangerFullAccess':
      put(asCodex(profile)).adapter_options.sandbox = 'danger-full-access';
      return { value: f, expect: { rule: 'forbidden_value', path: at('adapter_options', 'sandbox'), scope } };
    case 'claudeProvider':
      put(asClaude(profile)).local_provider = m.provider;
      return { value: f, expect: { rule: 'provider_requires_codex', path: at('local_provider'), scope } };
    case 'codexProviderNullModel': {
      const p = put(asCodex(profile));
      p.local_provider = m.provider;
      p.model = null;
      return { value: f, expect: { rule: 'provider_requires_model', path: at('model'), scope } };
    }
    case 'duplicateId': {
      const j = (i + 1 + (m.j % (n - 1))) % n;
      (f.executors[j] as MutableProfile).profile_id = profile.profile_id;
      const later = jsonPath('executors', Math.max(i, j));
      return { value: f, expect: { rule: 'duplicate_profile_id', path: `${later}.profile_id`, scope: later } };
    }
    case 'claudeOptionOnCodex':
      put(asCodex(profile)).adapter_options[m.option] = m.option === 'effort' ? 'high' : 'plan';
      return { value: f, expect: { rule: 'option_for_other_runtime', path: at('adapter_options', m.option), scope } };
    case 'codexOptionOnClaude':
      put(asClaude(profile)).adapter_options.sandbox = 'read-only';
      return { value: f, expect: { rule: 'option_for_other_runtime', path: at('adapter_options', 'sandbox'), scope } };
    case 'unknownTopField': {
      setOwn(f as unknown as JsonObj, m.key, clone(m.value));
      const path = jsonPath(m.key);
      return { value: f, expect: { rule: 'unknown_field', path, scope: path } };
    }
    case 'unknownProfileField':
      setOwn(profile, m.key, clone(m.value));
      return { value: f, expect: { rule: 'unknown_field', path: at(m.key), scope } };
    case 'unknownOption':
      setOwn(profile.adapter_options, m.key, clone(m.value));
      return { value: f, expect: { rule: 'unknown_field', path: at('adapter_options', m.key), scope } };
    case 'truncate':
      f.executors.length = m.length;
      return { value: f, expect: { rule: 'too_few_profiles', path: '$.executors', scope: '$.executors' } };
    case 'wrapInArray':
      return { value: [f], expect: { rule: 'wrong_type', path: '$', scope: '$' } };
    case 'missingProfileField':
      delete profile[m.field];
      return { value: f, expect: { rule: 'missing_field', path: at(m.field), scope } };
    case 'missingTopField': {
      delete (f as unknown as JsonObj)[m.field];
      const path = jsonPath(m.field);
      return { value: f, expect: { rule: 'missing_field', path, scope: path } };
    }
    case 'schemaVersion':
      f.schema_version = clone(m.value);
      return { value: f, expect: { rule: 'unsupported_schema_version', path: '$.schema_version', scope: '$.schema_version' } };
    case 'badProfileId':
      profile.profile_id = m.id;
      return { value: f, expect: { rule: 'pattern_mismatch', path: at('profile_id'), scope } };
    case 'badModel':
      profile.model = m.model;
      return { value: f, expect: { rule: 'pattern_mismatch', path: at('model'), scope } };
    case 'badRuntime':
      profile.runtime = m.runtime;
      return { value: f, expect: { rule: 'invalid_value', path: at('runtime'), scope } };
    case 'badProvider':
      profile.local_provider = m.provider;
      return { value: f, expect: { rule: 'invalid_value', path: at('local_provider'), scope } };
    case 'badOptionValue': {
      const key = profile.runtime === 'claude' ? (m.value.length % 2 === 0 ? 'permission_mode' : 'effort') : 'sandbox';
      const allowed: readonly string[] = key === 'permission_mode' ? PERMISSION_MODES : key === 'effort' ? EFFORTS : SANDBOXES;
      const value = allowed.includes(m.value) || m.value === 'bypassPermissions' || m.value === 'danger-full-access' ? `${m.value}!` : m.value;
      profile.adapter_options[key] = value;
      return { value: f, expect: { rule: 'invalid_value', path: at('adapter_options', key), scope } };
    }
    case 'wrongType':
      setOwn(profile, m.field, clone(m.value));
      return { value: f, expect: { rule: 'wrong_type', path: at(m.field), scope } };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Properties

describe('executor file fuzz: valid files', () => {
  it('accepts every valid file, returns it unchanged, and digests are stable and order-free', () => {
    fc.assert(
      fc.property(validFileArb, rndArb, fc.constantFrom<string | number | undefined>(undefined, 0, 2, '\t', ' \n'), (file, rnd, indent) => {
        const text = JSON.stringify(file);
        const result = parseExecutorFileText(text);
        expect(result.ok, JSON.stringify(violationsOf(result))).toBe(true);
        if (!result.ok) return;
        expect(result.value).toStrictEqual(JSON.parse(text));
        expect(ExecutorFileSchema.safeParse(JSON.parse(text)).success).toBe(true);
        expect(validateExecutorFile(JSON.parse(text)).ok).toBe(true);

        const digests = digestsOf(result.value);
        expect(digestsOf(result.value)).toEqual(digests);
        expect(digestsOf(file)).toEqual(digests);
        expect(digests.order).toEqual(file.executors.map((p) => p.profile_id).sort());
        expect(new Set(Object.values(digests.profiles)).size).toBe(file.executors.length);

        const pick = picker(rnd);
        const reordered = reorderKeys({ ...file, executors: shuffle(file.executors, pick) }, pick);
        const reorderedText = JSON.stringify(reordered, null, indent);
        const again = parseExecutorFileText(reorderedText);
        expect(again.ok).toBe(true);
        if (!again.ok) return;
        expect(digestsOf(again.value)).toEqual(digests);
        expect(canonicalProfileOrder(again.value.executors)).toStrictEqual(canonicalProfileOrder(result.value.executors));
      }),
      { numRuns: 400 },
    );
  });

  it('changes the profile and set digests when one profile changes, and no other profile digest', () => {
    fc.assert(
      fc.property(validFileArb, idx, modelArb, fc.constantFrom(...EFFORTS), fc.constantFrom(...SANDBOXES), (file, i, model, effort, sandbox) => {
        const before = digestsOf(file);
        const changed = clone(file);
        const target = changed.executors[i % changed.executors.length] as ExecutorProfile;
        if (target.model !== model) target.model = model;
        else if (target.runtime === 'claude') target.adapter_options = { ...target.adapter_options, effort: target.adapter_options.effort === effort ? (effort === 'low' ? 'max' : 'low') : effort };
        else target.adapter_options = { sandbox: target.adapter_options.sandbox === sandbox ? (sandbox === 'read-only' ? 'workspace-write' : 'read-only') : sandbox };
        const result = parseExecutorFileText(JSON.stringify(changed));
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        const after = digestsOf(result.value);
        expect(after.set).not.toBe(before.set);
        for (const p of file.executors) {
          if (p.profile_id === target.profile_id) expect(after.profiles[p.profile_id]).not.toBe(before.profiles[p.profile_id]);
          else expect(after.profiles[p.profile_id]).toBe(before.profiles[p.profile_id]);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('executor file fuzz: mutated files', () => {
  it('never throws, agrees with the strict schema, and fails only with well-formed EXECUTOR_FILE_INVALID', () => {
    const firstArb = fc.oneof(
      targetedMutationArb.map((m) => ({ targeted: m })),
      genericMutationArb.map((m) => ({ generic: m })),
    );
    fc.assert(
      fc.property(validFileArb, firstArb, fc.array(genericMutationArb, { maxLength: 2 }), (file, first, rest) => {
        let value: unknown = 'targeted' in first ? applyTargeted(file, first.targeted).value : applyGeneric(file, first.generic);
        for (const m of rest) value = applyGeneric(value, m);
        const text = JSON.stringify(value);
        const result = parseExecutorFileText(text);
        expectWellFormed(result);
        expect(result.ok).toBe(schemaAccepts(text));
        expect(validateExecutorFile(JSON.parse(text)).ok).toBe(result.ok);
      }),
      { numRuns: 3000 },
    );
  });

  it('reports the expected rule at the exact path, and nothing outside the mutated scope', () => {
    fc.assert(
      fc.property(validFileArb, targetedMutationArb, (file, m) => {
        const { value, expect: expected } = applyTargeted(file, m);
        const text = JSON.stringify(value);
        const result = parseExecutorFileText(text);
        expectWellFormed(result);
        expect(result.ok).toBe(false);
        expect(schemaAccepts(text)).toBe(false);
        const violations = violationsOf(result);
        expect(violations).toContainEqual({ rule: expected.rule, path: expected.path });
        for (const violation of violations) expect(within(violation.path, expected.scope), `${violation.path} outside ${expected.scope}`).toBe(true);
      }),
      { numRuns: 2500 },
    );
  });

  it('reports each targeted rule for a fixed example', () => {
    const file: ExecutorFile = {
      schema_version: 1,
      executors: [
        { profile_id: 'claude-a', runtime: 'claude', model: null, local_provider: null, adapter_options: { permission_mode: 'plan' } },
        { profile_id: 'codex-b', runtime: 'codex', model: 'qwen3-coder:30b', local_provider: 'ollama', adapter_options: { sandbox: 'read-only' } },
      ],
    };
    const cases: [TargetedMutation, string, string][] = [
      [{ kind: 'bypassPermissions', i: 0 }, 'forbidden_value', '$.executors[0].adapter_options.permission_mode'],
      [{ kind: 'dangerFullAccess', i: 1 }, 'forbidden_value', '$.executors[1].adapter_options.sandbox'],
      [{ kind: 'duplicateId', i: 0, j: 0 }, 'duplicate_profile_id', '$.executors[1].profile_id'],
      [{ kind: 'claudeProvider', i: 0, provider: 'lmstudio' }, 'provider_requires_codex', '$.executors[0].local_provider'],
      [{ kind: 'codexProviderNullModel', i: 1, provider: 'ollama' }, 'provider_requires_model', '$.executors[1].model'],
      [{ kind: 'claudeOptionOnCodex', i: 1, option: 'effort' }, 'option_for_other_runtime', '$.executors[1].adapter_options.effort'],
      [{ kind: 'codexOptionOnClaude', i: 0 }, 'option_for_other_runtime', '$.executors[0].adapter_options.sandbox'],
      [{ kind: 'unknownOption', i: 0, key: 'env', value: {} }, 'unknown_field', '$.executors[0].adapter_options.env'],
      [{ kind: 'unknownProfileField', i: 1, key: 'my key', value: 1 }, 'unknown_field', '$.executors[1]["my key"]'],
      [{ kind: 'unknownTopField', key: 'command', value: 'sh' }, 'unknown_field', '$.command'],
    ];
    for (const [m, rule, path] of cases) {
      const { value, expect: expected } = applyTargeted(file, m);
      expect(expected).toMatchObject({ rule, path });
      expect(violationsOf(parseExecutorFileText(JSON.stringify(value)))).toContainEqual({ rule, path });
    }
  });

  // Regression: inherited Object.prototype names were once reported as options of the other runtime.
  it('reports inherited Object.prototype names as unknown options', () => {
    for (const key of ['toString', 'constructor', '__proto__']) {
      const text = `{"schema_version":1,"executors":[
        {"profile_id":"a","runtime":"claude","model":null,"local_provider":null,"adapter_options":{"${key}":1}},
        {"profile_id":"b","runtime":"codex","model":null,"local_provider":null,"adapter_options":{}}]}`;
      const result = parseExecutorFileText(text);
      expectWellFormed(result);
      expect(violationsOf(result)).toEqual([{ rule: 'unknown_field', path: jsonPath('executors', 0, 'adapter_options', key) }]);
    }
  });

  it('rejects Object.prototype names at the top and profile levels as unknown fields', () => {
    for (const key of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const top = `{"schema_version":1,"${key}":{},"executors":[
        {"profile_id":"a","runtime":"claude","model":null,"local_provider":null,"adapter_options":{}},
        {"profile_id":"b","runtime":"codex","model":null,"local_provider":null,"adapter_options":{}}]}`;
      const profile = top.replace(`"${key}":{},`, '').replace('"profile_id":"b"', `"${key}":null,"profile_id":"b"`);
      for (const [text, path] of [[top, jsonPath(key)], [profile, jsonPath('executors', 1, key)]] as const) {
        const result = parseExecutorFileText(text);
        expectWellFormed(result);
        expect(schemaAccepts(text)).toBe(false);
        expect(violationsOf(result)).toContainEqual({ rule: 'unknown_field', path });
      }
    }
  });
});

describe('executor file fuzz: arbitrary text', () => {
  const tokens = ['{', '}', '[', ']', ',', ':', '"', '"schema_version"', '"executors"', '"profile_id"', '1', '-0', '1e999', 'null', 'true', '\\', '\\u', ' ', '\n', '\uFEFF', '/*', '*/', '//', "'", '\u0000', '\uD800'];
  const textArb = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.json(),
    fc.json({ maxDepth: 6 }).map((t) => `{"schema_version":1,"executors":${t}}`),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => new TextDecoder().decode(bytes)),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => String.fromCharCode(...bytes)),
    fc.array(fc.constantFrom(...tokens), { maxLength: 80 }).map((parts) => parts.join('')),
    fc
      .tuple(validFileArb, fc.nat(), fc.nat({ max: 8 }), fc.string({ maxLength: 3 }))
      .map(([file, at, cut, insert]) => {
        const text = JSON.stringify(file);
        const start = at % (text.length + 1);
        return text.slice(0, start) + insert + text.slice(start + cut);
      }),
  );

  it('never throws on arbitrary text and fails only with EXECUTOR_FILE_INVALID', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const result = parseExecutorFileText(text);
        expectWellFormed(result);
        if (result.ok) expect(schemaAccepts(text.replace(/^\uFEFF/, ''))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws on deep nesting, and rejects nesting beyond 32 levels as too_deep', () => {
    const deepArb = fc.tuple(
      fc.integer({ min: 1, max: 20_000 }),
      fc.constantFrom('arrays-open', 'arrays-closed', 'objects', 'in-string', 'under-executors', 'mixed'),
    );
    fc.assert(
      fc.property(deepArb, ([n, shape]) => {
        const text =
          shape === 'arrays-open' ? '['.repeat(n)
          : shape === 'arrays-closed' ? '['.repeat(n) + ']'.repeat(n)
          : shape === 'objects' ? '{"a":'.repeat(n) + '1' + '}'.repeat(n)
          : shape === 'in-string' ? `"${'['.repeat(n)}"`
          : shape === 'under-executors' ? `{"schema_version":1,"executors":${'['.repeat(n)}${']'.repeat(n)}}`
          : '[{"a":'.repeat(n) + 'null' + '}]'.repeat(n);
        const result = parseExecutorFileText(text);
        expectWellFormed(result);
        expect(result.ok).toBe(false);
        const depth = shape === 'in-string' ? 0 : shape === 'under-executors' ? n + 1 : shape === 'mixed' ? 2 * n : n;
        const rules = violationsOf(result).map((v) => v.rule);
        if (depth > 32) expect(rules).toEqual(['too_deep']);
        else expect(rules).not.toContain('too_deep');
      }),
      { numRuns: 400 },
    );
  });

  it('handles the JSON-text edge cases', () => {
    const valid = JSON.stringify({
      schema_version: 1,
      executors: [
        { profile_id: 'a', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
        { profile_id: 'b', runtime: 'codex', model: 'm', local_provider: 'lmstudio', adapter_options: {} },
      ],
    });
    const ruleOf = (text: string): string[] => violationsOf(parseExecutorFileText(text)).map((v) => v.rule);
    expect(parseExecutorFileText(valid).ok).toBe(true);
    expect(parseExecutorFileText(`\uFEFF${valid}`).ok).toBe(true);
    expect(ruleOf('')).toEqual(['empty_file']);
    expect(ruleOf(' \n\t ')).toEqual(['empty_file']);
    expect(ruleOf(valid.replace('{"schema_version":1,', '{"schema_version":1,"schema_version":1,'))).toEqual(['duplicate_key']);
    expect(ruleOf(valid.replace('"adapter_options":{}}]', '"adapter_options":{},}]'))).toEqual(['json_syntax']);
    expect(ruleOf(`/* c */${valid}`)).toEqual(['json_syntax']);
    expect(ruleOf(`${valid} x`)).toEqual(['json_syntax']);
    expect(ruleOf('['.repeat(32) + ']'.repeat(32))).toEqual(['wrong_type']);
    expect(ruleOf('['.repeat(33) + ']'.repeat(33))).toEqual(['too_deep']);
    expect(ruleOf(`"${'x'.repeat(1024 * 1024)}"`)).toEqual(['file_too_large']);
  });

  // Regression: a quote inside a comment once hid deep nesting from the depth pre-scan and the recursive
  // parser overflowed the stack.
  it('does not throw when a comment hides deep nesting from the depth check', () => {
    for (const text of [`[/*"*/${'['.repeat(100_000)}`, `[//"\n${'['.repeat(100_000)}`]) {
      const result = parseExecutorFileText(text);
      expectWellFormed(result);
      expect(result.ok).toBe(false);
    }
  });
});
