import { chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSupervisorNode, supervisorScriptPath } from '../../../main/app/supervisor-node';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

/** An executable that answers `--version` like a Node of the given version. */
function fakeNode(dir: string, version: string, name = 'node'): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\necho ${version}\n`);
  chmodSync(file, 0o755);
  return file;
}

const APP_BINARY = '/opt/Citadel Mission Control/citadel';

describe.skipIf(process.platform === 'win32')('resolveSupervisorNode', () => {
  it('picks the real Node on PATH', async () => {
    const result = await resolveSupervisorNode({ env: { PATH: path.dirname(process.execPath) }, appExecPath: APP_BINARY });
    expect(result).toEqual({ ok: true, execPath: path.join(path.dirname(process.execPath), 'node'), version: process.version });
  });

  it('prefers CITADEL_NODE over PATH', async () => {
    const dir = tempDir();
    const configured = fakeNode(dir, 'v22.23.5');
    const result = await resolveSupervisorNode({ env: { CITADEL_NODE: configured, PATH: path.dirname(process.execPath) }, appExecPath: APP_BINARY });
    expect(result).toEqual({ ok: true, execPath: configured, version: 'v22.23.5' });
  });

  it('refuses a Node older than 20', async () => {
    const dir = tempDir();
    const result = await resolveSupervisorNode({ env: { PATH: dir }, appExecPath: (fakeNode(dir, 'v18.20.4'), APP_BINARY) });
    expect(result).toEqual({ ok: false, problem: expect.stringContaining('needs Node >= 20') });
  });

  it('refuses the app binary itself, even through a symlink', async () => {
    const dir = tempDir();
    const app = fakeNode(dir, 'v42.11.18', 'citadel');
    symlinkSync(app, path.join(dir, 'node'));
    const result = await resolveSupervisorNode({ env: { PATH: dir }, appExecPath: app });
    expect(result).toEqual({ ok: false, problem: expect.stringContaining('is the app itself') });
  });

  it('refuses something that does not answer like Node', async () => {
    const dir = tempDir();
    const result = await resolveSupervisorNode({ env: { CITADEL_NODE: fakeNode(dir, 'hello') }, appExecPath: APP_BINARY });
    expect(result).toEqual({ ok: false, problem: expect.stringContaining('did not report a Node version') });
  });

  it('explains a missing or relative Node', async () => {
    await expect(resolveSupervisorNode({ env: { PATH: tempDir() }, appExecPath: APP_BINARY })).resolves.toEqual({
      ok: false,
      problem: 'no "node" on PATH and CITADEL_NODE is not set',
    });
    await expect(resolveSupervisorNode({ env: { CITADEL_NODE: 'node' }, appExecPath: APP_BINARY })).resolves.toEqual({
      ok: false,
      problem: expect.stringContaining('must be an absolute path'),
    });
    await expect(resolveSupervisorNode({ env: { CITADEL_NODE: path.join(tempDir(), 'node') }, appExecPath: APP_BINARY })).resolves.toEqual({
      ok: false,
      problem: expect.stringContaining('does not exist'),
    });
  });
});

describe('supervisorScriptPath', () => {
  it('points plain Node at the unpacked copy of a packaged app', () => {
    expect(supervisorScriptPath('/opt/Citadel/resources/app.asar')).toBe(path.join('/opt/Citadel/resources/app.asar.unpacked', 'out', 'cli', 'supervisor.mjs'));
  });

  it('uses out/cli directly when the app runs from the project folder', () => {
    expect(supervisorScriptPath('/work/citadel')).toBe(path.join('/work/citadel', 'out', 'cli', 'supervisor.mjs'));
  });
});
