import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';
import { call, send } from './http-client';

const tempDir = useTempDirs();

/**
 * The built CLI looks for the renderer beside its own bundle (out/renderer next to out/cli). A copy
 * of the bundle in a temp folder lets a test choose whether that folder exists, without touching
 * the repository's own out/; its packages resolve through a node_modules link.
 */
function installedCli(withRenderer: boolean): { cli: string; base: string } {
  const base = tempDir('citadel-mc-cli-');
  mkdirSync(path.join(base, 'cli'));
  for (const file of ['citadel.mjs', 'supervisor.mjs']) copyFileSync(path.join(REPO_ROOT, 'out', 'cli', file), path.join(base, 'cli', file));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(base, 'node_modules'));
  if (withRenderer) {
    mkdirSync(path.join(base, 'renderer'));
    writeFileSync(path.join(base, 'renderer', 'index.html'), '<!doctype html><title>Mission Control</title>\n');
  }
  return { cli: path.join(base, 'cli', 'citadel.mjs'), base };
}

const envFor = (base: string): NodeJS.ProcessEnv => ({ ...process.env, CITADEL_HOME: path.join(base, 'root'), CITADEL_KEYSTORE: 'file', CITADEL_ISSUER: 'cli-test' });

describe('citadel mission-control', () => {
  it('refuses to start without a built renderer, naming the fix', async () => {
    const { cli, base } = installedCli(false);
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'mission-control'], { env: envFor(base), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('RENDERER_NOT_BUILT');
    expect(run.stderr).toContain('npm run build');
  });

  it('refuses a port that is not one', async () => {
    const run = await runCli(['mission-control', '--port', '70000']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--port');
  });

  it('serves on 127.0.0.1, prints the URL with its token, and stops cleanly on SIGINT', async () => {
    const { cli, base } = installedCli(true);
    const child = spawn(process.execPath, [cli, 'mission-control', '--port', '0'], { env: envFor(base), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const url = await new Promise<URL>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = /^Mission Control: (\S+)$/m.exec(stdout);
        if (match?.[1]) resolve(new URL(match[1]));
      });
      void closed.then(() => reject(new Error(`exited before printing its URL:\n${stderr}`)));
    });
    expect(url.hostname).toBe('127.0.0.1');
    const token = url.searchParams.get('token') ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const port = Number(url.port);

    expect(await send(port, { path: `/?token=${token}` })).toMatchObject({ status: 200, body: expect.stringContaining('Mission Control') });
    const listed = await call(port, token, 'listForks', { state: null });
    expect(JSON.parse(listed.body)).toEqual({ ok: true, value: { forks: [] } });
    expect((await call(port, 'wrong', 'listForks', { state: null })).status).toBe(401);

    child.kill('SIGINT');
    expect(await closed).toBe(0);
    expect(stderr).toContain('Mission Control stopped.');
    await expect(send(port, { path: '/' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
