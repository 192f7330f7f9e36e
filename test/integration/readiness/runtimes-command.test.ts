import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_ADAPTERS } from '../../../main/runtimes/registry';
import { ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

interface Report {
  runtimes: { runtime: string; executable: { found: boolean; path: string | null; version: string | null; problem: string | null }; credentials: { configured: boolean; sources: string[] } }[];
  local_providers: { provider: string; reachable: boolean; models: string[] }[];
}

describe('citadel runtimes', () => {
  it('reports executables on PATH, credential names (never values) and what the local providers serve', async () => {
    server = createServer((req, res) => {
      const routes: Record<string, unknown> = {
        '/api/version': { version: '0.13.5' },
        '/api/tags': { models: [{ name: 'qwen3-coder:30b' }] },
        '/v1/models': { data: [{ id: 'qwen3-coder:30b' }] },
      };
      const body = routes[req.url ?? ''];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const h = new ForkHarness(tempDir('citadel-ready-'));
    await h.simulate({});
    const secret = 'sk-ant-test-never-printed-0123456789';
    const run = await h.cli(['runtimes', '--json'], { ANTHROPIC_API_KEY: secret, CODEX_OSS_BASE_URL: `http://127.0.0.1:${port}/v1` });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain(secret);
    const report = JSON.parse(run.stdout) as Report;
    const claude = report.runtimes.find((r) => r.runtime === 'claude');
    expect(claude).toMatchObject({ executable: { found: true, path: path.join(h.bin, 'claude') }, credentials: { configured: true, sources: ['ANTHROPIC_API_KEY'] } });
    expect(report.local_providers).toEqual([
      expect.objectContaining({ provider: 'ollama', reachable: true, models: ['qwen3-coder:30b'] }),
      expect.objectContaining({ provider: 'lmstudio', reachable: true, models: ['qwen3-coder:30b'] }),
    ]);
  });

  it("shows the provider credential by kind, when it expires and whether it refreshes, never a token", async () => {
    const h = new ForkHarness(tempDir('citadel-ready-'));
    await h.simulate({});
    const configDir = tempDir('citadel-ready-claude-');
    const token = 'sk-ant-oat01-never-printed-0123456789';
    const expiresAt = Date.now() + 3 * 3_600_000 + 60_000;
    writeFileSync(path.join(configDir, '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: token, refreshToken: `${token}-refresh`, expiresAt } }), { mode: 0o600 });
    const env = { CLAUDE_CONFIG_DIR: configDir, ANTHROPIC_API_KEY: '', ANTHROPIC_AUTH_TOKEN: '', CLAUDE_CODE_OAUTH_TOKEN: '' };
    const human = await h.cli(['runtimes'], env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`credential: Claude login in ${path.join(configDir, '.credentials.json')}, expires in 3 h, refreshed on the host when it expires`);
    const json = await h.cli(['runtimes', '--json'], env);
    const claude = (JSON.parse(json.stdout) as { runtimes: { runtime: string; credential: unknown }[] }).runtimes.find((r) => r.runtime === 'claude');
    expect(claude?.credential).toEqual({ kind: 'claude_login', label: `Claude login in ${path.join(configDir, '.credentials.json')}`, expires_at: new Date(expiresAt).toISOString(), refreshable: true });
    expect(human.stdout + json.stdout).not.toContain('never-printed');
  });

  it('says clearly when an executable is missing and no local provider answers', async () => {
    const h = new ForkHarness(tempDir('citadel-ready-'));
    const run = await h.cli(['runtimes'], { PATH: path.dirname(process.execPath), CODEX_OSS_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/claude: not found: RUNTIME_NOT_FOUND/);
    expect(run.stdout).toMatch(/Neither Ollama nor LM Studio answers/);
  });

  it('reports every registered runtime: each simulated executable with the version it answers', async () => {
    const h = new ForkHarness(tempDir('citadel-ready-'));
    await h.simulate({});
    const run = await h.cli(['runtimes', '--json'], { CODEX_OSS_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    const adapters = Object.values(BUILTIN_ADAPTERS);
    expect(adapters.map((a) => a.id)).toEqual(['claude', 'codex', 'gemini', 'qwen', 'opencode', 'copilot']);
    expect(report.runtimes.map((r) => r.runtime)).toEqual(adapters.map((a) => a.id));
    for (const adapter of adapters) {
      const entry = report.runtimes.find((r) => r.runtime === adapter.id);
      // A version proves `--version` answered: a probe that timed out or failed reports null.
      expect(entry?.executable, adapter.id).toMatchObject({ found: true, path: path.join(h.bin, adapter.executable), version: expect.stringContaining('(Citadel simulated)'), problem: null });
    }
    const human = await h.cli(['runtimes'], { CODEX_OSS_BASE_URL: 'http://127.0.0.1:9/v1' });
    for (const adapter of adapters) expect(human.stdout).toContain(`${adapter.id}: ${path.join(h.bin, adapter.executable)} (`);
  });

  it('says of each runtime not on PATH that it is not ready, why, and which npm package installs it', async () => {
    const h = new ForkHarness(tempDir('citadel-ready-'));
    const env = { PATH: path.dirname(process.execPath), CODEX_OSS_BASE_URL: 'http://127.0.0.1:9/v1' };
    const report = JSON.parse((await h.cli(['runtimes', '--json'], env)).stdout) as Report;
    const human = (await h.cli(['runtimes'], env)).stdout;
    expect(report.runtimes).toHaveLength(Object.keys(BUILTIN_ADAPTERS).length);
    for (const adapter of Object.values(BUILTIN_ADAPTERS)) {
      const problem = `RUNTIME_NOT_FOUND: "${adapter.executable}" was not found on PATH (it installs from the npm package ${adapter.vendorPackage.name})`;
      expect(report.runtimes.find((r) => r.runtime === adapter.id)?.executable, adapter.id).toMatchObject({ found: false, path: null, version: null, problem });
      expect(human).toContain(`${adapter.id}: not found: ${problem}`);
    }
    expect(human).toContain('@google/gemini-cli');
  });
});
