import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeLocalProviders } from '../../../main/runtimes/local-providers/local-providers';
import { isVersionAtLeast } from '../../../shared/runtime/readiness';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A loopback stand-in answering the endpoints the real Ollama and LM Studio serve. */
async function serve(routes: Record<string, unknown>, delayMs = 0): Promise<string> {
  const server = createServer((req, res) => {
    const body = routes[req.url ?? ''];
    setTimeout(() => {
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    }, delayMs);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closedPort(): Promise<string> {
  const url = await serve({});
  await new Promise((resolve) => servers.pop()?.close(resolve));
  return url;
}

describe('local provider readiness', () => {
  it('lists the models Ollama and LM Studio serve, and checks the Ollama version Codex needs', async () => {
    const ollama = await serve({ '/api/version': { version: '0.13.5' }, '/api/tags': { models: [{ name: 'qwen3-coder:30b' }, { name: 'llama3' }] } });
    const lmstudio = await serve({ '/v1/models': { object: 'list', data: [{ id: 'qwen3-coder-30b' }] } });
    const [o, l] = await probeLocalProviders({ ollama, lmstudio });
    expect(o).toEqual({ provider: 'ollama', base_url: ollama, reachable: true, version: '0.13.5', version_supported: true, models: ['qwen3-coder:30b', 'llama3'], problem: null });
    expect(l).toMatchObject({ provider: 'lmstudio', reachable: true, models: ['qwen3-coder-30b'], problem: null });
  });

  it('explains an Ollama that is too old, and providers that are not running', async () => {
    const old = await serve({ '/api/version': { version: '0.12.0' }, '/api/tags': { models: [] } });
    const [o, l] = await probeLocalProviders({ ollama: old, lmstudio: await closedPort() });
    expect(o).toMatchObject({ reachable: true, version_supported: false, problem: expect.stringContaining('older than 0.13.4') });
    expect(l).toMatchObject({ reachable: false, models: [], problem: 'not running (connection refused)' });
  });

  it('gives up on a provider that does not answer, without hanging', async () => {
    const slow = await serve({ '/api/version': { version: '0.13.5' } }, 5000);
    const started = Date.now();
    const [o] = await probeLocalProviders({ ollama: slow, lmstudio: await closedPort() });
    expect(o).toMatchObject({ reachable: false, problem: 'no answer within 1.5 s' });
    expect(Date.now() - started).toBeLessThan(4500);
  });

  it('compares versions numerically', () => {
    expect(isVersionAtLeast('0.13.4', '0.13.4')).toBe(true);
    expect(isVersionAtLeast('0.13.10', '0.13.4')).toBe(true);
    expect(isVersionAtLeast('v1.0.0', '0.13.4')).toBe(true);
    expect(isVersionAtLeast('0.9.99', '0.13.4')).toBe(false);
    expect(isVersionAtLeast('garbage', '0.13.4')).toBe(false);
  });
});
