import { homedir } from 'node:os';
import type { CredentialGrant } from './credential-grant';
import { claudeLoginFormat, claudeLoginStore, CLAUDE_OAUTH } from './claude-login';
import { codexLoginFormat, codexLoginStore, CODEX_OAUTH } from './codex-login';
import { platformKeychain, type KeychainSource } from './keychain';
import { refreshingCredential } from './oauth-refresher';
import type { UpstreamCredential } from './upstream-credential';

export interface UpstreamCredentialDeps {
  /** Needed only for a Keychain grant. */
  readonly keychain: KeychainSource | null;
  /** The operator's home: a Keychain login is locked at `~/.claude`, where Claude Code locks it. */
  readonly homeDir: string;
  readonly now: () => number;
}

/** This machine's: its Keychain on macOS, the operator's home, the real clock. */
export function hostUpstreamDeps(): UpstreamCredentialDeps {
  return { keychain: platformKeychain(), homeDir: homedir(), now: Date.now };
}

// Both CLIs renew ahead of expiry; five minutes covers one long streamed request.
const REFRESH_MARGIN_MS = 5 * 60_000;

/** The gateway's side of a grant resolved at launch. */
export function upstreamCredentialFor(grant: CredentialGrant, deps: UpstreamCredentialDeps): UpstreamCredential {
  switch (grant.kind) {
    case 'none':
      return { headers: () => Promise.resolve({}) };
    case 'static': {
      const headers = grant.headers;
      return { headers: () => Promise.resolve({ ...headers }) };
    }
    case 'claude_oauth':
      return refreshingCredential({
        store: claudeLoginStore(grant.source, deps.keychain, deps.homeDir),
        format: claudeLoginFormat,
        tokenUrl: grant.token_url ?? CLAUDE_OAUTH.tokenUrl,
        now: deps.now,
        marginMs: REFRESH_MARGIN_MS,
        loginAgainAdvice: CLAUDE_OAUTH.loginAgainAdvice,
      });
    case 'codex_chatgpt':
      return refreshingCredential({
        store: codexLoginStore(grant.auth_file),
        format: codexLoginFormat,
        tokenUrl: grant.token_url ?? CODEX_OAUTH.tokenUrl,
        now: deps.now,
        marginMs: REFRESH_MARGIN_MS,
        loginAgainAdvice: CODEX_OAUTH.loginAgainAdvice,
      });
  }
}
