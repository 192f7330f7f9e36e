import { z } from 'zod';

/**
 * What a run's provider gateway may use upstream (issue 28), resolved on the host at launch from the
 * operator's own sources and handed to the supervisor in its launch spec (owner-only, unlinked once
 * read, like the runtime's environment). The sandbox never sees any of it: it holds a placeholder.
 * - `none`: the provider takes no credential (a local Ollama or LM Studio).
 * - `static`: headers formed from a key (an API key from the environment or a login file); never refreshed.
 * - `claude_oauth`: Claude's subscription login, read from its credentials file or the macOS Keychain
 *   each time it is needed, refreshed on the host when it expires, written back under a lock.
 * - `codex_chatgpt`: Codex's ChatGPT login in its `auth.json`, likewise.
 * `token_url` replaces the vendor's token endpoint only where the operator's environment names one
 * (the vendor tests' scripted token endpoint); the sandbox cannot set it.
 */
export const CredentialGrantSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('static'), headers: z.record(z.string().regex(/^[a-z0-9-]+$/), z.string().min(1)) }),
  z.strictObject({
    kind: z.literal('claude_oauth'),
    source: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('file'), path: z.string().min(1) }),
      z.strictObject({ kind: z.literal('keychain'), service: z.string().min(1), account: z.string().min(1) }),
    ]),
    token_url: z.url().nullable(),
  }),
  z.strictObject({ kind: z.literal('codex_chatgpt'), auth_file: z.string().min(1), token_url: z.url().nullable() }),
]);
export type CredentialGrant = z.infer<typeof CredentialGrantSchema>;
