/**
 * KNOWN GAPS: silent changes the tamper suite finds today that belong to open issue 12 items.
 * Each entry names the stored file and mutation it covers and the item that would close it; an
 * entry no longer seen fails the suite, so the list stays the to-do it is.
 */
export interface KnownGap {
  readonly schemas: readonly (1 | 2)[];
  /** The counts-table row (a path relative to the fork folder) and the mutation label. */
  readonly file: RegExp;
  readonly label: RegExp;
  readonly what: string;
}

const BOTH = [1, 2] as const;

export const KNOWN_GAPS: readonly KnownGap[] = [
  {
    schemas: BOTH,
    file: /^fork\.json$/,
    label: /^state -> (pending|running|ready|selected|blocked|failed|unknown)$/,
    what: 'issue 12 item 2: fork.json `state` is shown unlabelled in compare (`state`) and drives Mission Control `resumability`; replay, proof and the Fork view label it (fork select is refused by the journal since H6)',
  },
  { schemas: BOTH, file: /^fork\.json$/, label: /^change revision$/, what: 'issue 12 item 2: fork.json `revision` is shown unlabelled in the Fork view (`forkStatus.revision`) and the landing plan (`fork_revision`)' },
  { schemas: BOTH, file: /^selection\.json$/, label: /^change (actor|fork_revision|idempotency_key|reason_digest)$/, what: "issue 12 item 2 (H2): an edited selection.json changes the landing plan's selection digest with no typed reason" },
];

/** The index of the known gap covering this silent change, or null. */
export function knownGap(schema: 1 | 2, file: string, label: string): number | null {
  const i = KNOWN_GAPS.findIndex((g) => g.schemas.includes(schema) && g.file.test(file) && g.label.test(label));
  return i < 0 ? null : i;
}
