/**
 * The scripted model servers that the vendor suite (test/vendors) points the real CLIs at, checked
 * with plain fetch: routes, SSE event order, scripts that advance only on a tool result, errors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicServer } from '../../support/model-servers/anthropic-server';
import { startLocalModelServer } from '../../support/model-servers/local-model-server';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const post = (url: string, body: unknown): Promise<Response> => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** `event:` names and parsed `data:` of an SSE body. */
async function sseEvents(response: Response): Promise<{ event: string; data: Record<string, unknown> }[]> {
  return (await response.text())
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const [eventLine = '', dataLine = ''] = frame.split('\n');
      return { event: eventLine.replace('event: ', ''), data: JSON.parse(dataLine.replace('data: ', '')) as Record<string, unknown> };
    });
}

describe('scripted Anthropic server', () => {
  const cwdMessage = { role: 'user', content: [{ type: 'text', text: '<system-reminder>\n - Primary working directory: /w/branch-a\n</system-reminder>' }] };

  it('streams a tool_use turn, then advances once the conversation carries its tool_result', async () => {
    const server = await startAnthropicServer({
      scenario: { kind: 'script', turns: [(c) => ({ text: 'writing', tool: { name: 'Write', input: { file_path: `${c.cwd}/x.txt`, content: 'x' } } }), { text: 'done' }] },
    });
    servers.push(server);
    const first = await post(`${server.origin}/v1/messages?beta=true`, { model: 'claude-sonnet-4-5', stream: true, messages: [cwdMessage] });
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    const events = await sseEvents(first);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]?.data).toMatchObject({ message: { model: 'claude-sonnet-4-5', role: 'assistant' } });
    expect(events[4]?.data).toMatchObject({ content_block: { type: 'tool_use', id: 'toolu_scripted_0', name: 'Write', input: {} } });
    expect(JSON.parse(String((events[5]?.data.delta as { partial_json: string }).partial_json))).toEqual({ file_path: '/w/branch-a/x.txt', content: 'x' });
    expect(events[7]?.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 45 } });

    const toolResult = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_scripted_0', content: 'File created' }] };
    const second = await sseEvents(await post(`${server.origin}/v1/messages?beta=true`, { model: 'claude-sonnet-4-5', stream: true, messages: [cwdMessage, { role: 'assistant', content: [] }, toolResult] }));
    expect(second[2]?.data).toMatchObject({ delta: { type: 'text_delta', text: 'done' } });
    expect(second.at(-2)?.data).toMatchObject({ delta: { stop_reason: 'end_turn' } });
    expect(server.toolResults()).toEqual([{ cwd: '/w/branch-a', tool_use_id: 'toolu_scripted_0', content: 'File created', is_error: false }]);
    expect(server.requests().map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/messages?beta=true', 'POST /v1/messages?beta=true']);
  });

  it('answers 401 authentication_error and 500 api_error as the real API does, and can override the served model', async () => {
    const denied = await startAnthropicServer({ scenario: { kind: 'error', status: 401 } });
    const broken = await startAnthropicServer({ scenario: { kind: 'error', status: 500 } });
    const dated = await startAnthropicServer({ scenario: { kind: 'script', turns: [{ text: 'hi' }] }, responseModel: 'claude-sonnet-4-5-20250929' });
    servers.push(denied, broken, dated);
    const unauthorized = await post(`${denied.origin}/v1/messages?beta=true`, { stream: true, messages: [] });
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const failed = await post(`${broken.origin}/v1/messages`, { stream: true, messages: [] });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    const [start] = await sseEvents(await post(`${dated.origin}/v1/messages`, { model: 'claude-sonnet-4-5', stream: true, messages: [] }));
    expect(start?.data).toMatchObject({ message: { model: 'claude-sonnet-4-5-20250929' } });
  });
});

describe('scripted local model server (Ollama / LM Studio)', () => {
  it('answers the discovery calls Codex makes, and LM Studio’s non-streaming warm-up with plain JSON', async () => {
    const server = await startLocalModelServer({ scenario: { kind: 'script', turns: [{ text: 'hello' }] } });
    servers.push(server);
    expect(await (await fetch(`${server.origin}/api/version`)).json()).toEqual({ version: '0.13.5' });
    expect(await (await fetch(`${server.origin}/api/tags`)).json()).toMatchObject({ models: [{ name: 'qwen3-coder:30b' }, { name: 'qwen3-coder-30b' }] });
    expect(await (await fetch(`${server.origin}/v1/models`)).json()).toMatchObject({ data: [{ id: 'qwen3-coder:30b' }, { id: 'qwen3-coder-30b' }] });
    expect(await (await post(`${server.origin}/api/pull`, { model: 'qwen3-coder:30b', stream: true })).json()).toEqual({ status: 'success' });
    const warmUp = await post(`${server.origin}/v1/responses`, { model: 'qwen3-coder-30b', input: '', max_output_tokens: 1 });
    expect(warmUp.headers.get('content-type')).toBe('application/json');
    expect(await warmUp.json()).toMatchObject({ object: 'response', status: 'completed', model: 'qwen3-coder-30b' });
  });

  it('streams a Responses exec_command call, then advances once the input carries its function_call_output', async () => {
    const server = await startLocalModelServer({ scenario: { kind: 'script', turns: [(c) => ({ cmd: `ls ${c.cwd}` }), { text: 'done' }] } });
    servers.push(server);
    const context = { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/w/branch-b</cwd>\n</environment_context>' }] };
    const first = await sseEvents(await post(`${server.origin}/v1/responses`, { model: 'qwen3-coder:30b', stream: true, input: [context] }));
    expect(first.map((e) => e.event)).toEqual(['response.created', 'response.output_item.added', 'response.output_item.done', 'response.completed']);
    expect(first[2]?.data).toMatchObject({ item: { type: 'function_call', name: 'exec_command', call_id: 'call_scripted_0', arguments: JSON.stringify({ cmd: 'ls /w/branch-b' }) } });
    expect(first[3]?.data).toMatchObject({ response: { usage: { input_tokens: 321, output_tokens: 54, total_tokens: 375 } } });

    const output = { type: 'function_call_output', call_id: 'call_scripted_0', output: 'a.txt\n' };
    const second = await sseEvents(await post(`${server.origin}/v1/responses`, { model: 'qwen3-coder:30b', stream: true, input: [context, output] }));
    expect(second.map((e) => e.event)).toEqual(['response.created', 'response.output_item.added', 'response.output_text.delta', 'response.output_item.done', 'response.completed']);
    expect(second[3]?.data).toMatchObject({ item: { type: 'message', content: [{ type: 'output_text', text: 'done' }] } });
    expect(server.functionOutputs()).toEqual([{ cwd: '/w/branch-b', call_id: 'call_scripted_0', output: 'a.txt\n' }]);
  });

  it('fails /v1/responses with 401 or 500 while discovery keeps working', async () => {
    for (const status of [401, 500] as const) {
      const server = await startLocalModelServer({ scenario: { kind: 'error', status } });
      servers.push(server);
      expect((await fetch(`${server.origin}/api/version`)).status).toBe(200);
      const response = await post(`${server.origin}/v1/responses`, { stream: true, input: [] });
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject({ error: { message: `scripted ${status} error from model server` } });
    }
  });
});
