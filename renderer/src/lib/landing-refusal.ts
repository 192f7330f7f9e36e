import { z } from 'zod';
import type { CitadelErrorData } from '../../../shared/errors';
import { LandingCheckSchema, type LandingCheck } from '../../../shared/fork/landing';

const ChecksSchema = z.array(LandingCheckSchema);

/**
 * The checks a landing refusal carries in its details (main/landing/land.ts), parsed like any other
 * untrusted reply; null when the error carries none in that shape.
 */
export function refusalChecks(error: CitadelErrorData): LandingCheck[] | null {
  const parsed = ChecksSchema.safeParse(error.details?.checks);
  return parsed.success ? parsed.data : null;
}
