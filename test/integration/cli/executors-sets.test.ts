import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutorFile } from '../../../shared/executors/profile-schema';
import { ForkRoot } from '../../../main/store/fork-root';
import { saveProfileSet } from '../../../main/store/profile-sets';
import { ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

/** `citadel executors sets` (issue 14 item 5): the sets saved in Mission Control, and each as a usable executor file. */
const tempDir = useTempDirs();

const LOCAL: ExecutorFile = {
  schema_version: 1,
  executors: [
    { profile_id: 'claude', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
    { profile_id: 'codex-ollama', runtime: 'codex', model: 'qwen3:8b', local_provider: 'ollama', adapter_options: {} },
  ],
};

describe('citadel executors sets', () => {
  it('lists the saved sets and prints one as an executor file that `executors validate` accepts', async () => {
    const h = new ForkHarness(tempDir('citadel-sets-cli-'));
    expect((await h.cli(['executors', 'sets'])).stdout).toContain('No saved profile sets');
    await saveProfileSet(await ForkRoot.open(h.root), { name: 'Local models', saved_at: '2026-12-01T20:00:00.000Z', file: LOCAL });

    const list = await h.cli(['executors', 'sets', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ sets: [{ name: 'Local models', saved_at: '2026-12-01T20:00:00.000Z', file: LOCAL }] });
    expect((await h.cli(['executors', 'sets'])).stdout).toBe('Local models: claude, codex-ollama (saved 2026-12-01T20:00:00.000Z)\n');

    const shown = await h.cli(['executors', 'sets', 'Local models']);
    expect(JSON.parse(shown.stdout)).toEqual(LOCAL);
    const file = path.join(h.base, 'executors.json');
    writeFileSync(file, shown.stdout);
    expect((await h.cli(['executors', 'validate', file])).code).toBe(0);

    const missing = await h.cli(['executors', 'sets', 'Cloud', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'PROFILE_SET_NOT_FOUND' } });
  });
});
