import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeRequestBody } from '../../../../main/sandbox/gateway/request-rules';
import { REPO_ROOT } from '../../../support/run-cli';

const fixture = (name: string): { body: Record<string, unknown> } => JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/gateway', name), 'utf8'));
const CLAUDE = ['claude-a_text.json', 'claude-b_tool_write-turn2.json'].map(fixture);
const CODEX = ['codex-ollama-a_text.json', 'codex-lmstudio-probe.json', 'codex-lmstudio-b_shell-turn2.json'].map(fixture);

describe('judgeRequestBody', () => {
  it('passes what Claude Code 2.1.328 and Codex 0.169.0 really sent, with their model allowed', () => {
    for (const { body } of CLAUDE) expect(judgeRequestBody('anthropic-messages', body, ['claude-sonnet-4-5'])).toEqual({ allowed: true, requestedModel: 'claude-sonnet-4-5' });
    for (const { body } of CODEX) expect(judgeRequestBody('openai-responses', body, ['qwen3-coder:30b'])).toEqual({ allowed: true, requestedModel: 'qwen3-coder:30b' });
    expect(judgeRequestBody('openai-responses', CODEX[0]?.body, null)).toEqual({ allowed: true, requestedModel: 'qwen3-coder:30b' });
  });

  it('refuses a model outside the contract, or none, when the contract names models', () => {
    const body = { ...CLAUDE[0]?.body, model: 'claude-opus-4-1' };
    expect(judgeRequestBody('anthropic-messages', body, ['claude-sonnet-4-5'])).toEqual({ allowed: false, refusal: 'model_not_allowed', requestedModel: 'claude-opus-4-1' });
    expect(judgeRequestBody('anthropic-messages', body, null).allowed).toBe(true);
    const modelless = { ...CLAUDE[0]?.body, model: undefined };
    expect(judgeRequestBody('anthropic-messages', modelless, ['claude-sonnet-4-5'])).toMatchObject({ allowed: false, refusal: 'model_not_allowed' });
  });

  it("refuses Anthropic's mcp_servers connector", () => {
    const body = { ...CLAUDE[0]?.body, mcp_servers: [{ type: 'url', url: 'https://attacker.example/mcp', name: 'x' }] };
    expect(judgeRequestBody('anthropic-messages', body, null)).toMatchObject({ allowed: false, refusal: 'mcp_servers_refused' });
  });

  it('refuses every Anthropic server tool, passing only client tools', () => {
    const base = CLAUDE[0]?.body ?? {};
    const tools = base['tools'] as object[];
    for (const type of ['web_search_20250305', 'web_fetch_20250910', 'code_execution_20250825', 'tool_search_tool_regex_20251119', 'mcp_toolset', 'advisor_20260301', 'something_new_20270101']) {
      expect(judgeRequestBody('anthropic-messages', { ...base, tools: [...tools, { type, name: 'x' }] }, null)).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    }
    for (const type of ['custom', 'bash_20250124', 'text_editor_20250728', 'computer_20251124', 'memory_20250818']) {
      expect(judgeRequestBody('anthropic-messages', { ...base, tools: [...tools, { type, name: 'x' }] }, null).allowed).toBe(true);
    }
  });

  it('refuses OpenAI hosted tools (also inside a namespace) and background responses', () => {
    const base = CODEX[0]?.body ?? {};
    const tools = base['tools'] as object[];
    const hosted = [{ type: 'mcp', server_url: 'https://attacker.example' }, { type: 'web_search' }, { type: 'web_search', external_web_access: true }, { type: 'web_search_preview' }, { type: 'file_search' }, { type: 'code_interpreter' }, { type: 'image_generation' }, { type: 'computer_use_preview' }, { type: 'tool_search' }, { type: 'tool_search', execution: 'server' }, { type: 'namespace', name: 'n', tools: [{ type: 'mcp' }] }];
    for (const tool of hosted) expect(judgeRequestBody('openai-responses', { ...base, tools: [...tools, tool] }, null)).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    expect(judgeRequestBody('openai-responses', { ...base, background: true }, null)).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    // What Codex 0.169.0 sends for gpt-5.5 (recording codex-cloud/a10): hosted search without live access, and a client-run tool search.
    for (const tool of [{ type: 'custom', name: 'apply_patch' }, { type: 'local_shell' }, { type: 'web_search', external_web_access: false }, { type: 'tool_search', execution: 'client' }]) expect(judgeRequestBody('openai-responses', { ...base, tools: [...tools, tool] }, null).allowed).toBe(true);
  });

  it('refuses what is not a JSON object with a tool list', () => {
    for (const body of [undefined, null, [], 'text', 3]) expect(judgeRequestBody('anthropic-messages', body, null)).toMatchObject({ allowed: false, refusal: 'body_unparsable' });
    expect(judgeRequestBody('openai-responses', { model: 'm', tools: { type: 'mcp' } }, null)).toMatchObject({ allowed: false, refusal: 'body_unparsable' });
  });
});
