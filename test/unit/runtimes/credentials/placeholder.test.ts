import { describe, expect, it } from 'vitest';
import { claudeCredentials } from '../../../../main/runtimes/claude/credentials';
import { codexCredentials } from '../../../../main/runtimes/codex/credentials';
import { placeholderFor } from '../../../../main/runtimes/credentials/placeholder';

describe('placeholders', () => {
  it("are fresh per attempt, in each CLI's key shape, with at least 32 random characters", () => {
    expect(placeholderFor(claudeCredentials.placeholder)).toMatch(/^sk-ant-api03-[A-Za-z0-9_-]{64}AA$/);
    expect(placeholderFor(codexCredentials.placeholder)).toMatch(/^sk-proj-[A-Za-z0-9_-]{64}$/);
    const many = new Set(Array.from({ length: 100 }, () => placeholderFor(claudeCredentials.placeholder)));
    expect(many.size).toBe(100);
  });
});
