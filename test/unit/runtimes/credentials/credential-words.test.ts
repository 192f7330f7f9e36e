import { describe, expect, it } from 'vitest';
import { renderReadiness } from '../../../../main/cli/commands/runtimes';
import { credentialSummary, expiryWords } from '../../../../shared/runtime/credential-words';
import type { ReadinessReport } from '../../../../shared/runtime/readiness';

const NOW = Date.parse('2026-12-05T12:00:00.000Z');

describe('credential words', () => {
  it('says when a login expires or expired', () => {
    expect(expiryWords('2026-12-05T15:00:00.000Z', NOW)).toBe('expires in 3 h');
    expect(expiryWords('2026-12-05T12:20:00.000Z', NOW)).toBe('expires in 20 min');
    expect(expiryWords('2026-12-05T11:00:00.000Z', NOW)).toBe('expired 1 h ago');
    expect(expiryWords(null, NOW)).toBeNull();
  });

  it('names the source, its expiry and whether the host can refresh it', () => {
    expect(credentialSummary({ kind: 'claude_login', label: 'Claude login in /h/.claude/.credentials.json', expires_at: '2026-12-05T15:00:00.000Z', refreshable: true }, NOW)).toBe(
      'Claude login in /h/.claude/.credentials.json, expires in 3 h, refreshed on the host when it expires',
    );
    expect(credentialSummary({ kind: 'env_api_key', label: 'API key from the environment (ANTHROPIC_API_KEY)', expires_at: null, refreshable: false }, NOW)).toBe(
      'API key from the environment (ANTHROPIC_API_KEY), not refreshable',
    );
    expect(credentialSummary({ kind: 'none', label: 'a local provider takes no credential', expires_at: null, refreshable: false }, NOW)).toBe('a local provider takes no credential');
  });

  it('shows the credential line in `citadel runtimes`', () => {
    const report: ReadinessReport = {
      runtimes: [
        {
          runtime: 'codex',
          executable: { name: 'codex', found: true, path: '/usr/bin/codex', via: 'path', version: 'codex-cli 0.169.0', problem: null },
          credentials: { configured: false, sources: [] },
          credential: { kind: 'chatgpt_login', label: 'ChatGPT login in /h/.codex/auth.json', expires_at: '2026-12-06T12:00:00.000Z', refreshable: true },
        },
      ],
      local_providers: [],
    };
    expect(renderReadiness(report, NOW)).toContain('  credential: ChatGPT login in /h/.codex/auth.json, expires in 24 h, refreshed on the host when it expires');
  });
});
