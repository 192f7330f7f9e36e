import { z } from 'zod';
import { DigestSchema } from '../../shared/digest';
import { ReceiptContainmentSchema } from '../../shared/fork/containment-facts';
import { SetupStepEvidenceSchema } from '../../shared/fork/receipts';
import { CHECKPOINT, readStoredJson } from '../store/read-stored-json';
import { SetupFailureSchema } from '../../shared/fork/workflow';
import { KeptPathsSchema, type KeptPaths } from '../git/kept-paths';

/** One attempt's setup as it ran (`setup.json` beside the attempt's other files). */
export const SetupFactsSchema = z.strictObject({
  steps: z.array(SetupStepEvidenceSchema).min(1),
  failure: SetupFailureSchema.nullable(),
  /** digestOf the kept-path fingerprints once setup passed; null when it failed. */
  kept_paths_digest: DigestSchema.nullable(),
  containment: ReceiptContainmentSchema,
});
export type SetupFacts = z.infer<typeof SetupFactsSchema>;

export const SETUP_TAIL_BYTES = 4096;

export function readSetupFacts(file: string): Promise<SetupFacts | null> {
  return readStoredJson(file, SetupFactsSchema, CHECKPOINT);
}

export function readKeptPaths(file: string): Promise<KeptPaths | null> {
  return readStoredJson(file, KeptPathsSchema, CHECKPOINT);
}
