import { CitadelError } from '../../../shared/errors';
import { CitadelStatementSchema, type CitadelStatement } from '../../../shared/publish/attestation';
import { zodViolations } from '../../../shared/zod-violations';
import { assertRedacted } from '../../publish/redaction/secret-scan';

/** The replay's gate: strict schemas (the allowlist), then the secret and path scan over every predicate. */
export async function assertPublicStatements(statements: readonly CitadelStatement[]): Promise<void> {
  statements.forEach((statement, index) => {
    const parsed = CitadelStatementSchema.safeParse(statement);
    if (!parsed.success) {
      throw new CitadelError('REPLAY_REDACTION_VIOLATION', 'a field outside the public allowlist reached the attestation', {
        violations: zodViolations(parsed.error.issues, [index], statement),
      });
    }
  });
  // Subjects, and a follow-up's materials (issue 32, the same shape), are commit ids by design (their schema admits nothing
  // else); their names are built from the scanned fork and branch ids (a material's from the scanned lineage).
  await assertRedacted(statements.map(({ predicate }) => ({ predicate: withoutMaterials(predicate) })));
}

function withoutMaterials(predicate: CitadelStatement['predicate']): object {
  return Object.fromEntries(Object.entries(predicate).filter(([key]) => key !== 'materials'));
}
