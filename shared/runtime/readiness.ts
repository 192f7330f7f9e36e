import { z } from 'zod';
import { SandboxReadinessSchema } from '../sandbox/sandbox-readiness';

/**
 * Where a runtime's provider credential would come from at launch (issue 28), by kind: the
 * environment, the CLI's own login file or the macOS Keychain, or none needed. Never a value.
 * `expires_at` is the access token's expiry where the source states one; `refreshable` says whether
 * the host can renew it without the operator.
 */
export const CredentialSourceKindSchema = z.enum([
  'env_api_key',
  'env_auth_token',
  'env_oauth_token',
  'claude_login',
  'keychain',
  'codex_api_key_file',
  'chatgpt_login',
  'none',
  'missing',
]);
export type CredentialSourceKind = z.infer<typeof CredentialSourceKindSchema>;

export const CredentialFactsSchema = z.strictObject({
  kind: CredentialSourceKindSchema,
  /** Plain words for the operator, e.g. "Claude login in ~/.claude/.credentials.json"; for `missing`, what to do. */
  label: z.string(),
  expires_at: z.iso.datetime().nullable(),
  refreshable: z.boolean(),
});
export type CredentialFacts = z.infer<typeof CredentialFactsSchema>;

/** What `citadel runtimes --json` reports for one adapter. Credential facts are names and kinds, never values. */
export const RuntimeReadinessSchema = z.strictObject({
  runtime: z.string(),
  executable: z.strictObject({
    name: z.string(),
    found: z.boolean(),
    path: z.string().nullable(),
    via: z.enum(['path', 'npm-shim']).nullable(),
    version: z.string().nullable(),
    problem: z.string().nullable(),
  }),
  credentials: z.strictObject({
    configured: z.boolean(),
    sources: z.array(z.string()),
  }),
  /** The credential the provider gateway would use for the runtime's cloud provider. */
  credential: CredentialFactsSchema,
});
export type RuntimeReadiness = z.infer<typeof RuntimeReadinessSchema>;

export const LocalProviderReadinessSchema = z.strictObject({
  provider: z.enum(['ollama', 'lmstudio']),
  base_url: z.string(),
  reachable: z.boolean(),
  version: z.string().nullable(),
  /** Codex requires Ollama >= 0.13.4; null where the provider has no such rule or did not answer. */
  version_supported: z.boolean().nullable(),
  models: z.array(z.string()),
  problem: z.string().nullable(),
});
export type LocalProviderReadiness = z.infer<typeof LocalProviderReadinessSchema>;

export const ReadinessReportSchema = z.strictObject({
  runtimes: z.array(RuntimeReadinessSchema),
  local_providers: z.array(LocalProviderReadinessSchema),
  /** The containment backend on this machine (issue 11); optional so that a report from before it still parses. */
  sandbox: SandboxReadinessSchema.optional(),
});
export type ReadinessReport = z.infer<typeof ReadinessReportSchema>;

/** Codex 0.169.0 refuses Ollama older than this (recordings/codex/f4_old_ollama_version). */
export const MIN_OLLAMA_VERSION = '0.13.4';

export function isVersionAtLeast(version: string, minimum: string): boolean {
  const parse = (v: string): number[] => v.replace(/^v/, '').split(/[.+-]/).slice(0, 3).map((p) => Number.parseInt(p, 10));
  const [a, b] = [parse(version), parse(minimum)];
  if (a.some(Number.isNaN) || a.length < 3) return false;
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}
