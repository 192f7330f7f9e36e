import { z } from 'zod';

/**
 * What every executor profile shares, and what one runtime adds to it: its id, its strict
 * `adapter_options`, the option values it advertises that Citadel refuses, and the local providers
 * it can reach. Environment-free (zod only): the executor-file validator, the renderer and the
 * runtime's adapter in main all read the same descriptor.
 */

export const ProfileIdSchema = z.string().regex(/^[a-z][a-z0-9-]{0,47}$/, 'a profile id: lowercase letters, digits and "-", starting with a letter, at most 48 characters');
export const ModelIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/, 'a model id: letters, digits and . _ : @ -, starting with a letter or digit, at most 128 characters');
export const LocalProviderSchema = z.enum(['ollama', 'lmstudio']);
export type LocalProvider = z.infer<typeof LocalProviderSchema>;

/** Why each refused value is refused, by option name then value; shown in the `forbidden_value` violation. */
export type ForbiddenOptionValues = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The reason every containment-weakening value shares unless a runtime says more (the frozen schema 1 wording). */
export const WEAKENS_SAFETY = 'it weakens the executor safety boundary';

/**
 * Whether the operator may run this runtime with `--containment runtime-only` (no OS sandbox, only
 * the vendor CLI's own permission mode). Refused, with why, for a CLI that then obeys repository
 * config able to send the operator's real key elsewhere or approve host shell commands.
 */
export type RuntimeOnlyOffer = 'offered' | { readonly refused: string };

export interface ExecutorRuntimeSpec<Id extends string, Options extends z.ZodObject> {
  readonly id: Id;
  /** A strict object of optional closed enums: a profile selects a value, never supplies text. */
  readonly options: Options;
  /** Values the runtime's CLI advertises that bypass approvals or sandboxes; none may be in `options`. */
  readonly forbiddenValues: ForbiddenOptionValues;
  /** The local model servers this runtime can be pointed at; empty when it has none. */
  readonly localProviders: readonly LocalProvider[];
  readonly runtimeOnly: RuntimeOnlyOffer;
}

/**
 * A runtime's descriptor, its strict five-field profile schema built here so every runtime obeys
 * the same profile rules: exact fields, the shared id and model grammars, a local provider only
 * from the runtime's own list and only with an explicit model (a local server has no default).
 */
export function executorRuntime<const Id extends string, Options extends z.ZodObject>(spec: ExecutorRuntimeSpec<Id, Options>) {
  const [first, ...rest] = spec.localProviders;
  const localProvider = first === undefined ? z.null() : z.enum([first, ...rest]).nullable();
  const profileSchema = z
    .strictObject({
      profile_id: ProfileIdSchema,
      runtime: z.literal(spec.id),
      model: ModelIdSchema.nullable(),
      local_provider: localProvider,
      adapter_options: spec.options,
    })
    .refine((p) => p.local_provider === null || p.model !== null, {
      path: ['model'],
      params: { rule: 'provider_requires_model' },
      message: 'a local provider requires an explicit model',
    });
  return { ...spec, profileSchema };
}

/** A profile as its runtime's descriptor reads it: the five fields, its options still opaque here. */
export interface DescribedProfile {
  readonly profile_id: string;
  readonly runtime: string;
  readonly model: string | null;
  readonly local_provider: LocalProvider | null;
  readonly adapter_options: Readonly<Record<string, unknown>>;
}

/** Any runtime's descriptor, as the executor-file rules walk them. */
export interface ExecutorRuntime extends ExecutorRuntimeSpec<string, z.ZodObject> {
  readonly profileSchema: z.ZodType<DescribedProfile>;
}

/**
 * The values each of a runtime's options accepts, by option name, read from its strict schema
 * (every option is an optional closed enum), so a form can offer them without naming a runtime.
 */
export function optionChoices(runtime: Pick<ExecutorRuntime, 'options'>): Readonly<Record<string, readonly string[]>> {
  return Object.fromEntries(
    Object.entries(runtime.options.shape).map(([name, schema]) => {
      const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema;
      return [name, inner instanceof z.ZodEnum ? inner.options.map(String) : []];
    }),
  );
}
