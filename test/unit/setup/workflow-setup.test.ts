/**
 * Issue 13, setup in the workflow file: version 1 files stay valid and mean what they meant (no
 * setup, the same contract digest), version 2 adds `setup`, which the contract digest covers, and a
 * `registries` step is bound to the host npm's configuration names, never to one the file writes.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestOf } from '../../../shared/digest';
import { WorkflowFileSchema } from '../../../shared/fork/workflow';
import { loadWorkflow } from '../../../main/orchestrator/load-workflow';
import { httpsHost } from '../../../main/setup/registries/registry-url';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const V1 = {
  schema_version: 1,
  steps: [{ id: 'fix', instruction: 'Fix it.' }],
  verifier: { command: 'npm', args: ['test'], timeout_seconds: 60 },
  protected_paths: ['test/**'],
};
const INSTALL = { id: 'install', command: 'npm', args: ['ci'], timeout_seconds: 600, network: 'registries' };

async function load(file: unknown, env: Record<string, string> = {}) {
  const dir = tempDir('citadel-workflow-');
  const at = path.join(dir, 'workflow.json');
  writeFileSync(at, JSON.stringify(file));
  return loadWorkflow(at, dir, { PATH: process.env.PATH, ...env });
}

describe('workflow file versions', () => {
  it('a version 1 file is valid, has no setup, and a setup field is refused in it', async () => {
    expect(WorkflowFileSchema.safeParse(V1).success).toBe(true);
    const loaded = await load(V1);
    expect('setup' in loaded.workflow).toBe(false);
    expect(WorkflowFileSchema.safeParse({ ...V1, setup: [INSTALL] }).success).toBe(false);
  });

  it('version 2: setup defaults (args [], network none), ids unique, commands bare', () => {
    const parsed = WorkflowFileSchema.parse({ ...V1, schema_version: 2, setup: [{ id: 'build', command: 'make', timeout_seconds: 60 }] });
    expect(parsed.schema_version === 2 && parsed.setup).toEqual([{ id: 'build', command: 'make', args: [], timeout_seconds: 60, network: 'none' }]);
    expect(WorkflowFileSchema.safeParse({ ...V1, schema_version: 2, setup: [INSTALL, INSTALL] }).success).toBe(false);
    expect(WorkflowFileSchema.safeParse({ ...V1, schema_version: 2, setup: [{ ...INSTALL, command: '/usr/bin/npm' }] }).success).toBe(false);
    expect(WorkflowFileSchema.safeParse({ ...V1, schema_version: 2, setup: [{ ...INSTALL, network: 'all' }] }).success).toBe(false);
  });

  it('a version 2 file without setup steps binds the same workflow as version 1 (only the file digest differs)', async () => {
    const v1 = await load(V1);
    const v2 = await load({ ...V1, schema_version: 2, setup: [] });
    expect({ ...v2.workflow, file_digest: null }).toEqual({ ...v1.workflow, file_digest: null });
  });

  it('setup changes the contract digest, and each of its fields does', async () => {
    const env = { npm_config_registry: 'https://registry.example.org/' };
    const base = await load({ ...V1, schema_version: 2, setup: [] });
    const withSetup = await load({ ...V1, schema_version: 2, setup: [INSTALL] }, env);
    const withOther = await load({ ...V1, schema_version: 2, setup: [{ ...INSTALL, args: ['ci', '--prefer-offline'] }] }, env);
    const digest = (w: typeof base) => digestOf({ ...w.workflow, file_digest: null });
    expect(new Set([digest(base), digest(withSetup), digest(withOther)]).size).toBe(3);
  });

  it('"registries" binds the host npm is configured with (read from npm, not the file); a command of no known toolchain is refused', async () => {
    const loaded = await load({ ...V1, schema_version: 2, setup: [INSTALL, { id: 'offline', command: 'npm', args: ['rebuild'], timeout_seconds: 60 }] }, { npm_config_registry: 'https://registry.example.org/' });
    expect(loaded.workflow.setup).toEqual([
      { ...INSTALL, registry_hosts: ['registry.example.org'] },
      { id: 'offline', command: 'npm', args: ['rebuild'], timeout_seconds: 60, network: 'none', registry_hosts: [] },
    ]);
    await expect(load({ ...V1, schema_version: 2, setup: [{ ...INSTALL, command: 'make' }] })).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining('setup command make has no known package registry') });
    await expect(load({ ...V1, schema_version: 2, setup: [INSTALL] }, { npm_config_registry: 'http://registry.example.org/' })).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED' });
  });

  it('only an https registry host name on port 443 can be allowed', () => {
    const registryHost = (url: string) => httpsHost(url, { toolchain: 'npm', setting: 'registry' });
    expect(registryHost('https://registry.npmjs.org/')).toBe('registry.npmjs.org');
    expect(registryHost('https://npm.example.com/private/path/')).toBe('npm.example.com');
    for (const refused of ['http://registry.npmjs.org/', 'https://registry.npmjs.org:8443/', 'https://10.0.0.1/', 'https://localhost/', 'not a url']) {
      expect(() => registryHost(refused), refused).toThrow(expect.objectContaining({ code: 'SETUP_REGISTRY_UNSUPPORTED' }));
    }
  });
});
