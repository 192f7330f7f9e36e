import { z } from 'zod';
import { SandboxBackendIdSchema } from './containment-policy';

/** What `citadel runtimes` and Settings report about containment on this machine. */
export const SandboxReadinessSchema = z.strictObject({
  /** The backend for this platform; null where Citadel has none (Windows and others). */
  backend: SandboxBackendIdSchema.nullable(),
  ready: z.boolean(),
  executable: z.string().nullable(),
  version: z.string().nullable(),
  /** What is missing or failed, in a sentence; null when ready. */
  problem: z.string().nullable(),
  /** The package (or step) that provides what is missing; null when ready or when nothing can. */
  install: z.string().nullable(),
});
export type SandboxReadiness = z.infer<typeof SandboxReadinessSchema>;
