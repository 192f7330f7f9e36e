/**
 * Headers whose value is a comma-separated list the client sends too: Claude Code names its own
 * betas in `anthropic-beta`, and an OAuth bearer needs `oauth-2025-04-20` among them. The gateway
 * adds the credential's entries to the client's instead of replacing them.
 */
const LIST_HEADERS: ReadonlySet<string> = new Set(['anthropic-beta']);

const entries = (value: string) =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/**
 * The upstream request's headers: the client's (its auth headers already dropped by the gateway)
 * with the credential's set over them, list headers merged (client's entries first, no duplicates).
 */
export function withCredentialHeaders(client: Readonly<Record<string, string>>, credential: Readonly<Record<string, string>>): Record<string, string> {
  const merged: Record<string, string> = { ...client };
  for (const [name, value] of Object.entries(credential)) {
    const existing = client[name];
    merged[name] = LIST_HEADERS.has(name) && existing !== undefined ? [...new Set([...entries(existing), ...entries(value)])].join(',') : value;
  }
  return merged;
}
