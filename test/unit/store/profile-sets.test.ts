import { readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CitadelError } from '../../../shared/errors';
import type { ExecutorFile, ExecutorFileV2 } from '../../../shared/executors/profile-schema';
import { ForkRoot } from '../../../main/store/fork-root';
import { deleteProfileSet, profileSetsFile, readProfileSets, saveProfileSet } from '../../../main/store/profile-sets';
import { useTempDirs } from '../../support/temp-dir';

/** Saved executor profile sets (issue 14 item 5) in `<fork root>/settings/profile-sets.json`. */
const tempDir = useTempDirs();
const AT = '2026-12-01T20:00:00.000Z';

const file = (model: string): ExecutorFile => ({
  schema_version: 1,
  executors: [
    { profile_id: 'claude', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
    { profile_id: 'codex-ollama', runtime: 'codex', model, local_provider: 'ollama', adapter_options: { sandbox: 'workspace-write' } },
  ],
});

async function refusal(promise: Promise<unknown>): Promise<CitadelError> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof CitadelError)) throw new Error(`expected a CitadelError, got ${String(error)}`);
  return error;
}

describe('profile sets store', () => {
  it('saves, lists by name, replaces a set of the same name and deletes, in a private file', async () => {
    const root = await ForkRoot.open(tempDir());
    expect(await readProfileSets(root)).toEqual([]);
    await saveProfileSet(root, { name: 'Local models', saved_at: AT, file: file('qwen3:8b') });
    await saveProfileSet(root, { name: 'Cloud', saved_at: AT, file: file('gpt-oss:20b') });
    const replaced = await saveProfileSet(root, { name: 'Local models', saved_at: AT, file: file('llama3.2') });
    expect(replaced.map((s) => s.name)).toEqual(['Cloud', 'Local models']);
    expect(replaced[1]?.file.executors[1]?.model).toBe('llama3.2');
    expect(await readProfileSets(root)).toEqual(replaced);
    expect(statSync(profileSetsFile(root)).mode & 0o777).toBe(0o600);
    expect(path.relative(root.dir, profileSetsFile(root))).toBe(path.join('settings', 'profile-sets.json'));

    expect((await deleteProfileSet(root, 'Cloud')).map((s) => s.name)).toEqual(['Local models']);
    expect((await refusal(deleteProfileSet(root, 'Cloud'))).code).toBe('PROFILE_SET_NOT_FOUND');
  });

  it('keeps a schema 2 set of any runtime (gemini and qwen) exactly as saved', async () => {
    const root = await ForkRoot.open(tempDir());
    const mixed: ExecutorFileV2 = {
      schema_version: 2,
      executors: [
        { profile_id: 'gemini', runtime: 'gemini', model: null, local_provider: null, adapter_options: { approval_mode: 'auto_edit' } },
        { profile_id: 'qwen-lmstudio', runtime: 'qwen', model: 'qwen3-coder', local_provider: 'lmstudio', adapter_options: {} },
      ],
    };
    await saveProfileSet(root, { name: 'Gemini and Qwen', saved_at: AT, file: mixed });
    expect(await readProfileSets(root)).toEqual([{ name: 'Gemini and Qwen', saved_at: AT, file: mixed }]);
    expect(JSON.parse(readFileSync(profileSetsFile(root), 'utf8'))).toMatchObject({ sets: [{ file: mixed }] });
  });

  it('two saves at once both land', async () => {
    const root = await ForkRoot.open(tempDir());
    await Promise.all([saveProfileSet(root, { name: 'a', saved_at: AT, file: file('m1') }), saveProfileSet(root, { name: 'b', saved_at: AT, file: file('m2') })]);
    expect((await readProfileSets(root)).map((s) => s.name)).toEqual(['a', 'b']);
  });

  it('a file that breaks the shared schema is PROFILE_SETS_INVALID with its violations, and is never overwritten', async () => {
    const root = await ForkRoot.open(tempDir());
    await saveProfileSet(root, { name: 'good', saved_at: AT, file: file('m1') });
    const stored = JSON.parse(readFileSync(profileSetsFile(root), 'utf8')) as { sets: { file: { executors: { adapter_options: Record<string, string> }[] } }[] };
    stored.sets[0]!.file.executors[1]!.adapter_options = { sandbox: 'danger-full-access' };
    const broken = JSON.stringify(stored);
    writeFileSync(profileSetsFile(root), broken);

    const error = await refusal(readProfileSets(root));
    expect(error.code).toBe('PROFILE_SETS_INVALID');
    expect(error.message).toContain('does not match its schema');
    expect(error.violations).toContainEqual(expect.objectContaining({ path: '$.sets[0].file.executors[1].adapter_options.sandbox', rule: 'forbidden_value' }));
    expect((await refusal(saveProfileSet(root, { name: 'other', saved_at: AT, file: file('m2') }))).code).toBe('PROFILE_SETS_INVALID');
    expect((await refusal(deleteProfileSet(root, 'good'))).code).toBe('PROFILE_SETS_INVALID');
    expect(readFileSync(profileSetsFile(root), 'utf8')).toBe(broken);

    writeFileSync(profileSetsFile(root), '{"schema_version":1,');
    expect((await refusal(readProfileSets(root))).message).toContain('not valid JSON');
  });

  it('refuses a symlinked settings folder instead of writing through it', async () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    const root = await ForkRoot.open(dir);
    symlinkSync(elsewhere, path.join(root.dir, 'settings'));
    expect((await refusal(saveProfileSet(root, { name: 'a', saved_at: AT, file: file('m1') }))).code).toBe('PATH_ESCAPE');
    expect(() => statSync(path.join(elsewhere, 'profile-sets.json'))).toThrow();
  });
});
