import { describe, expect, it } from 'vitest';
import { claudeCredentials } from '../../../../main/runtimes/claude/credentials';
import { codexCredentials } from '../../../../main/runtimes/codex/credentials';
import { withCredentialHeaders } from '../../../../main/runtimes/credentials/credential-headers';
import { placeholderFor } from '../../../../main/runtimes/credentials/placeholder';

describe('placeholders', () => {
  it("are fresh per attempt, in each CLI's key shape, with at least 32 random characters, given where the CLI reads its key", () => {
    const claude = placeholderFor(claudeCredentials.placeholder);
    expect(claude.value).toMatch(/^sk-ant-api03-[A-Za-z0-9_-]{64}AA$/);
    expect(claude.env).toEqual({ ANTHROPIC_API_KEY: claude.value });
    expect(claude.files).toEqual([]);
    const codex = placeholderFor(codexCredentials.placeholder);
    expect(codex.value).toMatch(/^sk-proj-[A-Za-z0-9_-]{64}$/);
    expect(codex.env).toEqual({ OPENAI_API_KEY: codex.value });
    const many = new Set(Array.from({ length: 100 }, () => placeholderFor(claudeCredentials.placeholder).value));
    expect(many.size).toBe(100);
  });
});

describe('credential headers over the client headers', () => {
  it("adds the OAuth beta to the client's own betas, and replaces any other header", () => {
    // The betas Claude Code 2.1.328 sent with the placeholder as its API key (docs/credentials.md).
    const measured = 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,per-turn-control-2026-07-01,mid-conversation-tool-changes-2026-07-01,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20,effort-2025-11-24';
    expect(withCredentialHeaders({ 'anthropic-beta': measured, 'content-type': 'application/json' }, { authorization: 'Bearer t', 'anthropic-beta': 'oauth-2025-04-20' })).toEqual({
      'anthropic-beta': `${measured},oauth-2025-04-20`,
      'content-type': 'application/json',
      authorization: 'Bearer t',
    });
    expect(withCredentialHeaders({ 'anthropic-beta': 'oauth-2025-04-20' }, { 'anthropic-beta': 'oauth-2025-04-20' })).toEqual({ 'anthropic-beta': 'oauth-2025-04-20' });
    expect(withCredentialHeaders({}, { 'x-api-key': 'k' })).toEqual({ 'x-api-key': 'k' });
  });
});
