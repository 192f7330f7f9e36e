import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiGenerateContent } from '../../../../main/sandbox/gateway/dialects/gemini-generate-content';
import { openAiChatCompletions } from '../../../../main/sandbox/gateway/dialects/openai-chat-completions';
import { judgeRequestBody } from '../../../../main/sandbox/gateway/request-rules';
import { REPO_ROOT } from '../../../support/run-cli';

type Fixture = { url: string; body: Record<string, unknown> };
const fixture = (name: string): Fixture => JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/gateway', name), 'utf8'));
const GEMINI = ['gemini-text.json', 'gemini-edit-turn2.json'].map(fixture);
const CHAT = ['opencode-title.json', 'opencode-edit-turn2.json', 'copilot-edit-turn2.json'].map(fixture);
const GEMINI_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent';
const gemini = (body: unknown, models: readonly string[] | null = ['gemini-2.5-flash'], at = GEMINI_PATH) => judgeRequestBody('gemini-generate-content', body, models, { path: at, budgeted: false });
const chat = (body: unknown, budgeted = false, models: readonly string[] | null = ['fake-coder-1']) => judgeRequestBody('openai-chat-completions', body, models, { path: '/v1/chat/completions', budgeted });

describe('the Gemini API dialect', () => {
  it('passes what Gemini CLI 0.61.0 really sent (text, and the turn after a write_file call), the model read from the path', () => {
    for (const { url, body } of GEMINI) {
      expect(url).toBe(`${GEMINI_PATH}?alt=sse`);
      expect(gemini(body)).toEqual({ allowed: true, requestedModel: 'gemini-2.5-flash' });
    }
    expect(gemini(GEMINI[0]?.body, null)).toEqual({ allowed: true, requestedModel: 'gemini-2.5-flash' });
  });

  it('refuses another model in the path, a path naming none, and a model in the body besides the path', () => {
    const body = GEMINI[0]?.body;
    expect(gemini(body, ['gemini-2.5-flash'], '/v1beta/models/gemini-2.5-pro:streamGenerateContent')).toEqual({ allowed: false, refusal: 'model_not_allowed', requestedModel: 'gemini-2.5-pro' });
    expect(gemini(body, ['gemini-2.5-flash'], '/v1beta/models/gemini%2D2.5-flash:streamGenerateContent')).toMatchObject({ allowed: false, refusal: 'model_not_allowed' });
    expect(judgeRequestBody('gemini-generate-content', body, ['gemini-2.5-flash'])).toMatchObject({ allowed: false, refusal: 'model_not_allowed' });
    expect(gemini({ ...body, model: 'models/gemini-2.5-pro' }, null)).toMatchObject({ allowed: false, refusal: 'model_not_allowed' });
  });

  it('refuses every tool Google runs (in either spelling), passing only function declarations', () => {
    const base = GEMINI[1]?.body ?? {};
    const tools = base['tools'] as object[];
    for (const tool of [{ googleSearch: {} }, { google_search: {} }, { urlContext: {} }, { url_context: {} }, { codeExecution: {} }, { googleSearchRetrieval: {} }, { computerUse: { environment: 'ENVIRONMENT_BROWSER' } }, { fileSearch: {} }, { googleMaps: {} }, { somethingNew: {} }, { functionDeclarations: [], googleSearch: {} }, 'googleSearch']) {
      expect(gemini({ ...base, tools: [...tools, tool] })).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    }
    expect(gemini({ ...base, tools: [...tools, { function_declarations: [{ name: 'x' }] }] }).allowed).toBe(true);
    expect(gemini({ ...base, tools: { googleSearch: {} } })).toMatchObject({ allowed: false, refusal: 'body_unparsable' });
  });

  it('refuses content Google would fetch (fileData, in either spelling, anywhere in the contents) and stored content', () => {
    const base = GEMINI[0]?.body ?? {};
    const contents = base['contents'] as object[];
    const exfil = 'https://attacker.example/x?d=secret';
    for (const part of [{ fileData: { fileUri: exfil, mimeType: 'text/html' } }, { file_data: { file_uri: exfil } }, { functionResponse: { name: 'f', response: {}, parts: [{ fileData: { fileUri: exfil } }] } }]) {
      expect(gemini({ ...base, contents: [...contents, { role: 'user', parts: [part] }] })).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    }
    expect(gemini({ ...base, systemInstruction: { parts: [{ fileData: { fileUri: exfil } }] } })).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    for (const member of ['cachedContent', 'cached_content']) expect(gemini({ ...base, [member]: 'cachedContents/abc' })).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    // A function call's arguments and a function response's data are never read as parts.
    const opaque = [{ role: 'model', parts: [{ functionCall: { name: 'f', args: { fileData: { fileUri: exfil } } } }] }, { role: 'user', parts: [{ functionResponse: { name: 'f', response: { fileData: { fileUri: exfil } } } }] }];
    expect(gemini({ ...base, contents: [...contents, ...opaque] }).allowed).toBe(true);
    expect(gemini({ ...base, contents: [...contents, { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }] }).allowed).toBe(true);
  });

  it('takes exactly alt=sse on a stream and no query otherwise; names the model segment {model} in the route', () => {
    const { judgeQuery, routePath } = geminiGenerateContent;
    expect(judgeQuery(GEMINI_PATH, 'alt=sse')).toBeNull();
    expect(judgeQuery('/v1beta/models/m:generateContent', '')).toBeNull();
    for (const query of ['', 'alt=sse&key=citadel-placeholder', 'key=AIza-real', 'alt=sse&fields=candidates', 'alt=sse&$fields=candidates', 'alt=proto', '$alt=json;enum-encoding=int', 'alt=sse&alt=proto', 'alt=SSE']) {
      expect(judgeQuery(GEMINI_PATH, query)).toBe('query_not_allowed');
    }
    expect(judgeQuery('/v1beta/models/m:generateContent', 'alt=sse')).toBe('query_not_allowed');
    expect(routePath(GEMINI_PATH)).toBe('/v1beta/models/{model}:streamGenerateContent');
    expect(routePath('/v1beta/models/gemini-2.5-flash:generateContent')).toBe('/v1beta/models/{model}:generateContent');
    for (const odd of ['/v1beta/models/{model}:streamGenerateContent', '/v1beta/models/:streamGenerateContent', '/v1beta/models/gemini%2D2.5:generateContent', '/v1beta/models/..:generateContent']) expect(routePath(odd)).toBeNull();
    expect(routePath('/v1beta/models')).toBe('/v1beta/models');
    expect(routePath('/v1beta/models/m/../../files:generateContent')).toBe('/v1beta/models/m/../../files:generateContent');
  });
});

describe('the OpenAI Chat Completions dialect', () => {
  it('passes what OpenCode 1.18.33 (title request, turn after a tool) and Copilot CLI 1.0.102 (turn after a tool) really sent, with a budget too', () => {
    for (const { url, body } of CHAT) {
      expect(url).toBe('/v1/chat/completions');
      expect(chat(body, true)).toEqual({ allowed: true, requestedModel: 'fake-coder-1' });
    }
  });

  it('refuses another model in the body, or none', () => {
    const body = CHAT[0]?.body ?? {};
    expect(chat({ ...body, model: 'gpt-5' })).toEqual({ allowed: false, refusal: 'model_not_allowed', requestedModel: 'gpt-5' });
    expect(chat({ ...body, model: undefined })).toMatchObject({ allowed: false, refusal: 'model_not_allowed' });
    expect(chat({ ...body, model: 'gpt-5' }, false, null).allowed).toBe(true);
  });

  it('refuses tools and members with which the provider acts (web search, plugins, live search, retrieval)', () => {
    const base = CHAT[1]?.body ?? {};
    const tools = base['tools'] as object[];
    for (const tool of [{ type: 'web_search' }, { type: 'web_search_preview' }, { type: 'mcp', server_url: 'https://attacker.example' }, { function: { name: 'untyped' } }, 'function']) {
      expect(chat({ ...base, tools: [...tools, tool] })).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    }
    expect(chat({ ...base, tools: [...tools, { type: 'custom', custom: { name: 'apply_patch' } }] }).allowed).toBe(true);
    for (const member of ['web_search_options', 'plugins', 'search_parameters', 'enable_search', 'search_options', 'data_sources']) {
      expect(chat({ ...base, [member]: member === 'enable_search' ? true : {} })).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    }
  });

  it('refuses an image the provider would fetch from a URL, and a stored file by id', () => {
    const base = CHAT[0]?.body ?? {};
    const messages = base['messages'] as object[];
    const exfil = 'https://attacker.example/x?d=secret';
    for (const part of [{ type: 'image_url', image_url: { url: exfil } }, { type: 'image_url', image_url: exfil }, { type: 'image_url', image_url: {} }, { type: 'file', file: { file_id: 'file-abc' } }]) {
      expect(chat({ ...base, messages: [...messages, { role: 'user', content: [{ type: 'text', text: 'hi' }, part] }] })).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    }
    const inline = [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }, { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,AAAA' } }];
    expect(chat({ ...base, messages: [...messages, { role: 'user', content: inline }] }).allowed).toBe(true);
  });

  it('refuses every content part but inline text, image, audio and file: what a provider would fetch from a URL, and any other type', () => {
    const base = CHAT[0]?.body ?? {};
    const exfil = 'https://attacker.example/a?d=SECRET';
    const refused = [
      { type: 'video_url', video_url: { url: exfil } },
      { type: 'video', video: [exfil] },
      { type: 'input_audio', input_audio: { data: exfil, format: 'wav' } },
      { type: 'input_audio', input_audio: { data: 'data:audio/wav;base64,AAAA', format: 'wav' } },
      { type: 'file', file: { filename: 'a.pdf', file_data: exfil } },
      { type: 'file', file: { filename: 'a.pdf' } },
      { type: 'file', file: { file_id: 'file-abc', file_data: 'data:application/pdf;base64,AAAA' } },
      { type: 'image', image: exfil },
      { type: 'text' },
      { image_url: { url: exfil } },
      'text',
    ];
    const withPart = (part: unknown, role = 'user') => ({ ...base, messages: [{ role, content: [{ type: 'text', text: 'hi' }, part] }] });
    for (const part of refused) expect(chat(withPart(part)), JSON.stringify(part)).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    // A part given outside a content list, or as a tool's result, is read the same way.
    expect(chat({ ...base, messages: [{ role: 'user', content: { type: 'video_url', video_url: { url: exfil } } }] })).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    expect(chat(withPart({ type: 'video_url', video_url: { url: exfil } }, 'tool'))).toMatchObject({ allowed: false, refusal: 'server_tool_refused' });
    const inline = [
      { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } },
      { type: 'image_url', image_url: 'DATA:image/png;base64,AAAA' },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,AAAA' } },
    ];
    expect(chat({ ...base, messages: [{ role: 'user', content: inline }] }).allowed).toBe(true);
  });

  it('passes every whole request OpenCode, Copilot CLI and Qwen Code sent in their recordings', () => {
    const dir = path.join(REPO_ROOT, 'test/fixtures/recordings');
    const bodies = ['opencode', 'copilot', 'qwen'].flatMap((runtime) =>
      readdirSync(path.join(dir, runtime)).flatMap((kase) => {
        const file = path.join(dir, runtime, kase, 'requests.jsonl');
        if (!existsSync(file)) return [];
        const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');
        const posts = lines.map((line) => JSON.parse(line) as { method?: string; url?: string; body?: Record<string, unknown> | null });
        // Bodies the recorder trimmed keep only their keys; the whole ones are judged.
        return posts.filter((post) => post.method === 'POST' && post.url === '/v1/chat/completions' && post.body?.['_trimmed'] === undefined).map((post) => ({ runtime, kase, body: post.body }));
      }),
    );
    expect(new Set(bodies.map((entry) => entry.runtime))).toEqual(new Set(['opencode', 'copilot', 'qwen']));
    expect(bodies.length).toBeGreaterThan(20);
    for (const { runtime, kase, body } of bodies) expect(chat(body, false, null), `${runtime}/${kase}`).toMatchObject({ allowed: true });
  });

  it('takes no query string at all', () => {
    const { judgeQuery } = openAiChatCompletions;
    expect(judgeQuery('/v1/chat/completions', '')).toBeNull();
    for (const query of ['%24fields=choices', 'alt=proto', 'key=AIza-real', 'api-version=2024-10-21', 'x']) expect(judgeQuery('/v1/chat/completions', query)).toBe('query_not_allowed');
  });

  it('with a budget, refuses a stream that does not ask for its usage; without one, forwards it', () => {
    const base = CHAT[0]?.body ?? {};
    for (const options of [undefined, {}, { include_usage: false }, { include_usage: 'true' }]) {
      const body = { ...base, stream_options: options };
      expect(chat(body, true)).toMatchObject({ allowed: false, refusal: 'usage_not_requested' });
      expect(chat(body, false).allowed).toBe(true);
    }
    // A non-streamed answer always carries its usage.
    expect(chat({ ...base, stream: false, stream_options: undefined }, true).allowed).toBe(true);
    expect(chat({ ...base, stream: 'true', stream_options: undefined }, true)).toMatchObject({ allowed: false, refusal: 'body_unparsable' });
  });
});
