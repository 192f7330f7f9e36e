/** Where a store keeps private keys; the file store is the operator's explicit, weaker opt-in (decisions D9). */
export type KeyStoreDescription = { readonly kind: 'os-keychain'; readonly weaker: false } | { readonly kind: 'file'; readonly weaker: true };

/** One place that holds the stored text of each issuer's private key. Every failure is a typed CitadelError. */
export interface KeyBackend {
  readonly description: KeyStoreDescription;
  /** The stored text, or null when the issuer has no key yet. */
  read(issuerId: string): Promise<string | null>;
  /** Stores `text` unless the issuer already has a key, and returns what is stored afterwards. */
  create(issuerId: string, text: string): Promise<string>;
  /** Throws the error a key operation would meet now; touches no key. */
  check(): Promise<void>;
  /**
   * The operator's imported public keys (main/evidence/trust/trusted-keys.ts), one entry beside the
   * private keys: a process that can only write the fork root cannot add one. null when none was imported.
   */
  readTrusted(): Promise<string | null>;
  /** Replaces that entry. */
  writeTrusted(text: string): Promise<void>;
}
