/**
 * The typed refusals each stored file may produce (issue 12, acceptance): a mutation of a file is
 * refused for the reason that file stands for, not by whatever surface happens to fail first. A
 * refused mutation must state at least one refusal of its file's family (for a file in a branch's
 * folder, on that branch); a refusal of a file with no family here fails too, since its mutations
 * are expected to change nothing.
 */
interface Family {
  readonly file: RegExp;
  /** The refusal kinds of the family: a verification reason, `error CODE`, `check NAME`, or a decision record's problem. */
  readonly kinds: RegExp;
}

const FAMILIES: readonly Family[] = [
  { file: /^branches\/[^/]+\/attempt-\d+\/execution-receipt\.json$/, kinds: /^receipt_/ },
  { file: /^branches\/[^/]+\/attempt-\d+\/fork-receipt\.json$/, kinds: /^wrapper_/ },
  { file: /^branches\/[^/]+\/attempt-\d+\/observation\.json$/, kinds: /^observation_mismatch$/ },
  // A branch or attempt folder dropped or swapped: its receipt is gone, or binds another fork.
  { file: /^branches\/[^/]+\/(attempt-\d+\/)?$/, kinds: /^receipt_(missing|binding_mismatch)$/ },
  { file: /^contract\.json$/, kinds: /^contract_digest_mismatch$/ },
  { file: /^signer\.json$/, kinds: /^signer_key_mismatch$/ },
  // fork.json names the branch set, the contract and every branch's state and attempt: what it breaks is the record's binding.
  {
    file: /^fork\.json$/,
    kinds: /^(error FORK_RECORD_INVALID|error FORK_NOT_FOUND|branch_set_mismatch|record_mismatch|not_collected|receipt_(missing|binding_mismatch)|executor_set_mismatch|profile_digest_mismatch|contract_digest_mismatch)$/,
  },
  { file: /^request\.json$/, kinds: /^(check target_contained|executor_set_mismatch)$/ },
  { file: /^selection\.json$/, kinds: /^error (SELECTION_RECORD_MISMATCH|SELECTION_SIGNATURE_INVALID|FORK_RECORD_INVALID|FORK_STATE_CONFLICT)$/ },
  // The selection's signature: refused by landing, and the selection not shown by replay and proof.
  { file: /^selection\.sig\.json$/, kinds: /^(error SELECTION_SIGNATURE_INVALID|selection_unverified)$/ },
  { file: /^landing\.json$/, kinds: /^(landing_unverified|error FORK_RECORD_INVALID)$/ },
  { file: /^journal\.jsonl$/, kinds: /^(landing_unverified|error FORK_RECORD_INVALID|error SELECTION_RECORD_MISMATCH)$/ },
  // The objective's private text: the contract binds its digest, so a changed copy is only shown as an unverified title.
  { file: /^objective\.txt$/, kinds: /^unverified$/ },
  { file: /^\(fork folder\)\/$/, kinds: /^fork_id_mismatch$/ },
  { file: /^\(every signed file\)$/, kinds: /^signer_untrusted$/ },
];

/**
 * Why the refusals stated for a mutation of `file` (each `surface:where:kind` or `surface:kind`,
 * as surfaces.ts `refusals` names them) are not of its family; null when they are.
 */
export function familyProblem(file: string, refusals: readonly string[]): string | null {
  const family = FAMILIES.find((f) => f.file.test(file));
  if (family === undefined) return `refused (${refusals.join(', ')}), but ${file} has no refusal family: its mutations should change nothing`;
  const owner = /^branches\/([^/]+)\//.exec(file)?.[1];
  const fits = refusals.some((r) => {
    const parts = r.split(':');
    const kind = parts[parts.length - 1] ?? '';
    return family.kinds.test(kind) && (owner === undefined || (parts.length === 3 && parts[1] === owner));
  });
  return fits ? null : `refused by ${refusals.join(', ')}, none of ${file}'s family ${String(family.kinds)}${owner === undefined ? '' : ` on ${owner}`}`;
}
