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
  // Subjects are commit ids by design (their schema admits nothing else); their names are built from the scanned fork and branch ids.
  await assertRedacted(statements.map(({ predicate }) => ({ predicate })));
}
