import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assertCleanable, cleanabilityOf } from '../../../main/orchestrator/cleanability';
import { profileSetsFile } from '../../../main/store/profile-sets';
import { ForkHarness } from '../../support/fork-harness';
import { serviceOver } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Issue 14 item 7 and 5 through the real service: Settings' parts answer one call each, and saved
 * profile sets round-trip through the fork root's settings, validated on the way in and out.
 */
const tempDir = useTempDirs();

const PAIR = {
  schema_version: 1,
  executors: [
    { profile_id: 'claude', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
    { profile_id: 'codex-ollama', runtime: 'codex', model: 'qwen3:8b', local_provider: 'ollama', adapter_options: {} },
  ],
} as const;

describe('readiness, one part per call', () => {
  it('settings names the runtimes; each part answers alone what the whole report says', async () => {
    const h = new ForkHarness(tempDir('citadel-parts-'));
    const { service } = await serviceOver(h);
    const settings = await service.handle('settings', {});
    if (!settings.ok) throw new Error(settings.error.message);
    expect(settings.value.runtimes).toEqual(['claude', 'codex', 'qwen']);
    const report = await service.handle('readiness', {});
    if (!report.ok) throw new Error(report.error.message);
    // Each part is exactly what the whole report says of it.
    for (const runtime of settings.value.runtimes) {
      expect(await service.handle('runtimeReadiness', { runtime })).toEqual({ ok: true, value: report.value.runtimes.find((r) => r.runtime === runtime) });
    }
    expect(await service.handle('sandboxReadiness', {})).toEqual({ ok: true, value: report.value.sandbox });
    expect(await service.handle('runtimeReadiness', { runtime: 'gemini' })).toMatchObject({ ok: false, error: { code: 'RUNTIME_UNKNOWN' } });
    expect(await service.handle('localProviderReadiness', {})).toMatchObject({ ok: true, value: { providers: expect.any(Array) } });
  });
});

describe('saved profile sets through the service', () => {
  it('saves, lists and deletes; a set that is no executor file is refused before anything is written', async () => {
    const h = new ForkHarness(tempDir('citadel-sets-'));
    const { ctx, service } = await serviceOver(h);
    expect(await service.handle('profileSets', {})).toEqual({ ok: true, value: { sets: [] } });
    const saved = await service.handle('saveProfileSet', { name: 'Local models', file: PAIR });
    expect(saved).toMatchObject({ ok: true, value: { sets: [{ name: 'Local models', file: PAIR }] } });
    expect(JSON.parse(readFileSync(profileSetsFile(ctx.root), 'utf8'))).toMatchObject({ schema_version: 1, sets: [{ name: 'Local models' }] });

    const duplicate = { ...PAIR, executors: [PAIR.executors[0], PAIR.executors[0]] };
    expect(await service.handle('saveProfileSet', { name: 'dup', file: duplicate })).toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID' } });
    const forbidden = { ...PAIR, executors: [PAIR.executors[0], { ...PAIR.executors[1], adapter_options: { sandbox: 'danger-full-access' } }] };
    expect(await service.handle('saveProfileSet', { name: 'unsafe', file: forbidden })).toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID' } });
    expect(await service.handle('profileSets', {})).toMatchObject({ ok: true, value: { sets: [{ name: 'Local models' }] } });

    expect(await service.handle('deleteProfileSet', { name: 'Local models' })).toEqual({ ok: true, value: { sets: [] } });
    expect(await service.handle('deleteProfileSet', { name: 'Local models' })).toMatchObject({ ok: false, error: { code: 'PROFILE_SET_NOT_FOUND' } });
  });

  it('a damaged file is PROFILE_SETS_INVALID on every channel and stays as it was', async () => {
    const h = new ForkHarness(tempDir('citadel-sets-'));
    const { ctx, service } = await serviceOver(h);
    await service.handle('saveProfileSet', { name: 'a', file: PAIR });
    writeFileSync(profileSetsFile(ctx.root), '{"schema_version":1,"sets":[{"name":"a"}]}');
    for (const reply of [await service.handle('profileSets', {}), await service.handle('saveProfileSet', { name: 'b', file: PAIR }), await service.handle('deleteProfileSet', { name: 'a' })]) {
      expect(reply).toMatchObject({ ok: false, error: { code: 'PROFILE_SETS_INVALID', violations: expect.arrayContaining([expect.objectContaining({ path: '$.sets[0].saved_at', rule: 'missing_field' })]) } });
    }
    expect(readFileSync(profileSetsFile(ctx.root), 'utf8')).toBe('{"schema_version":1,"sets":[{"name":"a"}]}');
  });
});

describe('cleanability', () => {
  const branch = (branch_id: string, state: 'running' | 'pending' | 'passed') => ({ branch_id, state });
  it('is the one rule cleanFork refuses by: running first, then pending', () => {
    expect(cleanabilityOf({ branches: [branch('branch-a', 'passed')] } as never)).toEqual({ cleanable: true });
    expect(cleanabilityOf({ branches: [branch('branch-a', 'pending'), branch('branch-b', 'running')] } as never)).toEqual({ cleanable: false, reason: 'branches_running', branch_ids: ['branch-b'] });
    expect(cleanabilityOf({ branches: [branch('branch-a', 'pending'), branch('branch-b', 'passed')] } as never)).toEqual({ cleanable: false, reason: 'branches_pending', branch_ids: ['branch-a'] });
    expect(() => assertCleanable({ branches: [branch('branch-b', 'running')] } as never)).toThrow(
      expect.objectContaining({ code: 'FORK_STATE_CONFLICT', message: 'stop the running branches first: branch-b', details: { running: ['branch-b'] } }),
    );
    expect(() => assertCleanable({ branches: [branch('branch-a', 'pending')] } as never)).toThrow(expect.objectContaining({ code: 'FORK_STATE_CONFLICT', details: { pending: ['branch-a'] } }));
    expect(() => assertCleanable({ branches: [branch('branch-a', 'passed')] } as never)).not.toThrow();
  });
});
