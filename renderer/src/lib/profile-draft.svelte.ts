import { canonicalJson } from '../../../shared/canonical-json';
import type { Violation } from '../../../shared/errors';
import { canonicalProfileOrder, executorSetDigest, profileDigest } from '../../../shared/executors/executor-digests';
import { branchIdFor } from '../../../shared/executors/executor-set-description';
import {
  EXECUTOR_RUNTIMES,
  SCHEMA_1_RUNTIME_IDS,
  executorFileVersionFor,
  executorRuntimeFor,
  type AnyExecutorFile,
  type ExecutorProfileV2,
} from '../../../shared/executors/profile-schema';
import { optionChoices } from '../../../shared/executors/runtimes/descriptor';
import { validateAnyExecutorFile } from '../../../shared/executors/validate-executor-file';
import { formatJsonPath, parseJsonText } from '../../../shared/json-text';

/**
 * The New Fork profile editor's model. Every field is kept as typed text so that anything the
 * operator enters (a forbidden value included) reaches the shared validator and is reported at its
 * field; the executor file is rebuilt from the rows on every change and validated live.
 */
export interface DraftRow {
  /** Stable identity for keyed rendering; not part of the file. */
  readonly key: number;
  profile_id: string;
  runtime: string;
  /** Empty means null (the runtime's default model). */
  model: string;
  /** Empty means null (no local provider). */
  local_provider: string;
  /** Adapter option values by option name; an empty value is omitted from the file. */
  options: Record<string, string>;
}

type ProfileFields = Omit<DraftRow, 'key'>;

/** Every runtime a profile may name, in the descriptors' order: what the runtime list offers. */
export const RUNTIME_CHOICES: readonly string[] = EXECUTOR_RUNTIMES.map((runtime) => runtime.id);

/** The option names a runtime accepts, from its shared descriptor (none for an unknown runtime). */
export function optionNames(runtime: string): string[] {
  return Object.keys(executorRuntimeFor(runtime)?.options.shape ?? {});
}

/** The values a runtime's option accepts, offered as suggestions; the validator stays the judge. */
export function optionSuggestions(runtime: string, option: string): readonly string[] {
  const descriptor = executorRuntimeFor(runtime);
  return descriptor === undefined ? [] : (optionChoices(descriptor)[option] ?? []);
}

/** The local model servers a runtime can be pointed at, from its descriptor (none for an unknown runtime). */
export function localProvidersOf(runtime: string): readonly string[] {
  return executorRuntimeFor(runtime)?.localProviders ?? [];
}

/** The first runtime, in the descriptors' order, that can run a model this provider serves. */
export function runtimeForProvider(provider: string): string | undefined {
  return EXECUTOR_RUNTIMES.find((runtime) => runtime.localProviders.some((p) => p === provider))?.id;
}

export const fieldPath = (index: number, field: string): string => formatJsonPath(['executors', index, field]);

/** Where in the executor file a violation is, in words: `$.executors[1].adapter_options.sandbox` reads "Profile 2, sandbox". */
export function placeInFile(path: string): string {
  const words = (text: string): string => text.replace(/^adapter_options\./, '').replaceAll('_', ' ').replaceAll('.', ' ');
  const profile = /^\$\.executors\[(\d+)\](?:\.(.+))?$/.exec(path);
  if (profile !== null) return `Profile ${Number(profile[1]) + 1}${profile[2] === undefined ? '' : `, ${words(profile[2])}`}`;
  if (path === '$.executors') return 'Profiles';
  return words(path.replace(/^\$\.?/, ''));
}
export const optionPath = (index: number, option: string): string => formatJsonPath(['executors', index, 'adapter_options', option]);

export interface DigestPreview {
  executor_set_digest: string;
  profiles: { profile_id: string; branch_id: string; runtime: string; profile_digest: string }[];
}

export interface ImportProblem {
  message: string;
  violations: readonly Violation[];
}

let nextKey = 1;

export class ProfileDraft {
  rows = $state<DraftRow[]>([]);
  importProblem = $state<ImportProblem | null>(null);

  readonly file = $derived(fileFromRows(this.rows));
  readonly result = $derived(validateAnyExecutorFile(this.file));
  readonly violations: readonly Violation[] = $derived(this.result.ok ? [] : (this.result.error.violations ?? []));
  /** The executor file the rows make, once it validates: what a saved set holds. */
  readonly validFile: AnyExecutorFile | null = $derived(this.result.ok ? this.result.value : null);
  readonly profiles: ExecutorProfileV2[] | null = $derived(this.result.ok ? this.result.value.executors : null);
  /** Digests by the shared digest rules, shown while editing; the authoritative argv comes from previewFork. */
  readonly preview: DigestPreview | null = $derived(this.profiles === null ? null : digestPreview(this.profiles));

  constructor(initial: readonly ProfileFields[] = DEFAULT_PROFILES) {
    this.rows = initial.map(withKey);
  }

  violationsAt(path: string): Violation[] {
    return this.violations.filter((v) => v.path === path);
  }

  add(fields: Partial<ProfileFields> = {}): void {
    this.rows.push(withKey({ profile_id: '', runtime: RUNTIME_CHOICES[0] ?? '', model: '', local_provider: '', options: {}, ...fields }));
  }

  remove(key: number): void {
    this.rows = this.rows.filter((row) => row.key !== key);
  }

  /**
   * Replaces the rows with an executor file's profiles. A file the form cannot represent exactly
   * (wrong types, unknown fields, options of another runtime) is refused with its violations, so
   * the form never silently changes what the file says.
   */
  importText(text: string): boolean {
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      this.importProblem = { message: 'The file is not valid JSON.', violations: [parsed.violation] };
      return false;
    }
    const rows = rowsFromFile(parsed.value);
    if (rows === null || canonicalJson(fileFromRows(rows)) !== canonicalJson(parsed.value)) {
      const result = validateAnyExecutorFile(parsed.value);
      this.importProblem = {
        message: 'The file has content this form cannot show; fix it in a text editor and load it again.',
        violations: result.ok ? [] : (result.error.violations ?? []),
      };
      return false;
    }
    this.rows = rows;
    this.importProblem = null;
    return true;
  }
}

/** One profile per schema 1 runtime, each named after it: the set a fork of the two original runtimes starts from. */
const DEFAULT_PROFILES: readonly ProfileFields[] = SCHEMA_1_RUNTIME_IDS.map((runtime) => ({ profile_id: runtime, runtime, model: '', local_provider: '', options: {} }));

function withKey(fields: ProfileFields): DraftRow {
  return { key: nextKey++, ...fields, options: { ...fields.options } };
}

function fileFromRows(rows: readonly ProfileFields[]): { schema_version: number; executors: unknown[] } {
  return {
    schema_version: executorFileVersionFor(rows),
    executors: rows.map((row) => ({
      profile_id: row.profile_id,
      runtime: row.runtime,
      model: row.model === '' ? null : row.model,
      local_provider: row.local_provider === '' ? null : row.local_provider,
      adapter_options: Object.fromEntries(
        optionNames(row.runtime)
          .map((name) => [name, row.options[name] ?? ''] as const)
          .filter(([, value]) => value !== ''),
      ),
    })),
  };
}

function rowsFromFile(value: unknown): DraftRow[] | null {
  if (!isRecord(value) || !Array.isArray(value.executors)) return null;
  const rows: DraftRow[] = [];
  for (const entry of value.executors) {
    if (!isRecord(entry) || !isRecord(entry.adapter_options)) return null;
    const { profile_id, runtime, model, local_provider } = entry;
    if (typeof profile_id !== 'string' || typeof runtime !== 'string') return null;
    if (!isStringOrNull(model) || !isStringOrNull(local_provider)) return null;
    const options: Record<string, string> = {};
    for (const [name, option] of Object.entries(entry.adapter_options)) {
      if (typeof option !== 'string') return null;
      options[name] = option;
    }
    rows.push(withKey({ profile_id, runtime, model: model ?? '', local_provider: local_provider ?? '', options }));
  }
  return rows;
}

function digestPreview(profiles: readonly ExecutorProfileV2[]): DigestPreview {
  return {
    executor_set_digest: executorSetDigest(profiles),
    profiles: canonicalProfileOrder(profiles).map((p) => ({
      profile_id: p.profile_id,
      branch_id: branchIdFor(p.profile_id),
      runtime: p.runtime,
      profile_digest: profileDigest(p),
    })),
  };
}

/** A profile id for a discovered local model run by `runtime`, following the profile_id grammar and unused so far. */
export function suggestProfileId(runtime: string, provider: string, model: string, taken: ReadonlySet<string>): string {
  const base = `${runtime}-${provider}-${model}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/-$/, '')
    .slice(0, 44);
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base}-${n}`;
  return candidate;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringOrNull(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}
