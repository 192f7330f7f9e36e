import { z } from 'zod';
import { canonicalJson } from '../../shared/canonical-json';
import type { RuntimeAdapter } from '../../main/runtimes/adapter-contract/runtime-adapter';
import type { ProfileOptions } from './cases/conformance-case';

/**
 * Every option combination an adapter's profile schema accepts: the case's models times every
 * value of `local_provider` and of each `adapter_options` key, read from the schema itself, so an
 * option added to an adapter without a row in its case's argv table fails the suite.
 */
export function acceptedCombinations(adapter: Pick<RuntimeAdapter, 'id' | 'profileSchema'>, models: readonly (string | null)[]): ProfileOptions[] {
  const shape = objectShape(adapter.profileSchema, `${adapter.id} profile schema`);
  const providers = valuesOf(shape.local_provider, 'local_provider') as ProfileOptions['local_provider'][];
  const optionShape = objectShape(shape.adapter_options, 'adapter_options');
  const optionSets = Object.entries(optionShape).reduce<Record<string, unknown>[]>(
    (sets, [key, schema]) => sets.flatMap((set) => valuesOf(schema, key).map((value) => (value === undefined ? set : { ...set, [key]: value }))),
    [{}],
  );
  const all = models.flatMap((model) => providers.flatMap((local_provider) => optionSets.map((adapter_options) => ({ model, local_provider, adapter_options }))));
  return all.filter((options) => adapter.profileSchema.safeParse({ profile_id: 'conformance', runtime: adapter.id, ...options }).success);
}

/** A stable key for one combination (canonical JSON: key order never matters). */
export function combinationKey(options: ProfileOptions): string {
  return canonicalJson({ model: options.model, local_provider: options.local_provider, adapter_options: options.adapter_options });
}

function objectShape(schema: unknown, what: string): Record<string, z.ZodType> {
  if (!(schema instanceof z.ZodObject)) throw new Error(`${what} is not a zod object: its options cannot be enumerated`);
  return schema.shape as Record<string, z.ZodType>;
}

/** The finite values a field accepts; a field the suite cannot enumerate is a case-design error. */
function valuesOf(schema: unknown, field: string): unknown[] {
  if (schema instanceof z.ZodOptional) return [undefined, ...valuesOf(schema.unwrap(), field)];
  if (schema instanceof z.ZodNullable) return [null, ...valuesOf(schema.unwrap(), field)];
  if (schema instanceof z.ZodNull) return [null];
  if (schema instanceof z.ZodEnum) return [...schema.options];
  if (schema instanceof z.ZodLiteral) return [...schema.values];
  if (schema instanceof z.ZodBoolean) return [false, true];
  throw new Error(`cannot enumerate the values of ${field}`);
}
