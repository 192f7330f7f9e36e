import type { z } from 'zod';
import { digestOf } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import type { OpenedArtifactSchema } from '../../shared/ipc/contract';
import { parseJsonText } from '../../shared/json-text';
import { ProofReportSchema, ReplaySchema } from '../../shared/publish/replay';
import { violation, zodViolations } from '../../shared/zod-violations';

// The contract bounds the text at 16 MiB; a replay or proof nests a handful of levels.
const MAX_ARTIFACT_BYTES = 16 * 1024 * 1024;

const SCHEMA_BY_KIND = { citadel_replay: ReplaySchema, citadel_proof_report: ProofReportSchema } as const;

/**
 * Reads an exported replay or proof report someone hands over. The text is untrusted and only
 * read: strict JSON, a known kind, its strict schema; then the digest is recomputed, and for a
 * proof report the embedded replay is checked against `replay_digest`.
 */
export function openArtifact(text: string): z.infer<typeof OpenedArtifactSchema> {
  const parsed = parseJsonText(text, { maxBytes: MAX_ARTIFACT_BYTES });
  if (!parsed.ok) throw invalid('the artifact is not strict JSON', [parsed.violation]);
  const kind = kindOf(parsed.value);
  if (kind === null) {
    throw invalid('the artifact is neither a Citadel replay nor a proof report', [violation(['kind'], 'invalid_value', 'expected "citadel_replay" or "citadel_proof_report"')]);
  }
  const checked = SCHEMA_BY_KIND[kind].safeParse(parsed.value);
  if (!checked.success) throw invalid(`the ${kind} does not match its schema`, zodViolations(checked.error.issues, [], parsed.value));
  // Parsed from JSON text, so it is JSON; the cast only drops the `| undefined` zod infers for optional fields.
  const document = checked.data as z.infer<typeof OpenedArtifactSchema>['document'] & typeof checked.data;
  const digestChecked = document.kind === 'citadel_proof_report' ? document.replay_digest === digestOf(document.replay) : false;
  return { kind, digest: digestOf(document), digest_checked: digestChecked, document };
}

function kindOf(value: unknown): keyof typeof SCHEMA_BY_KIND | null {
  if (typeof value !== 'object' || value === null || !('kind' in value)) return null;
  return value.kind === 'citadel_replay' || value.kind === 'citadel_proof_report' ? value.kind : null;
}

function invalid(message: string, violations: ReturnType<typeof zodViolations>): CitadelError {
  return new CitadelError('ARTIFACT_INVALID', message, { violations });
}
