import { readFileSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestOf } from '../../../shared/digest';
import { MAX_INCLUDE_CONFIRMATIONS, type IncludeConfirmationRecord } from '../../../shared/fork/include-confirmation';
import { ForkRoot } from '../../../main/store/fork-root';
import { includeConfirmationsFile, isIncludeListConfirmed, recordIncludeConfirmation } from '../../../main/store/include-confirmations';
import { useTempDirs } from '../../support/temp-dir';

/** `<fork root>/settings/include-confirmations.json` (issue 27): which repository confirmed which `.worktreeinclude` list. */
const tempDir = useTempDirs();

const REPO = digestOf({ repository: 'a' });
const LIST = digestOf({ list: 1 });
const record = (repository: string, include_digest: string, at = '2026-12-05T20:00:00.000Z'): IncludeConfirmationRecord => ({
  repository,
  repository_root: '/work/repo',
  include_digest,
  confirmed_at: at,
});

describe('include confirmations store', () => {
  it('keeps a confirmation by repository and list, once, in a private settings file', async () => {
    const root = await ForkRoot.open(tempDir());
    expect(await isIncludeListConfirmed(root, REPO, LIST)).toBe(false);
    await recordIncludeConfirmation(root, record(REPO, LIST));
    await recordIncludeConfirmation(root, record(REPO, LIST, '2026-12-05T21:00:00.000Z'));
    expect(await isIncludeListConfirmed(root, REPO, LIST)).toBe(true);
    expect(await isIncludeListConfirmed(root, REPO, digestOf({ list: 2 }))).toBe(false);
    expect(await isIncludeListConfirmed(root, digestOf({ repository: 'b' }), LIST)).toBe(false);
    const file = includeConfirmationsFile(root);
    expect(path.relative(root.dir, file)).toBe(path.join('settings', 'include-confirmations.json'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ schema_version: 1, confirmations: [record(REPO, LIST, '2026-12-05T21:00:00.000Z')] });
  });

  it('keeps the newest confirmations only', async () => {
    const root = await ForkRoot.open(tempDir());
    for (let i = 0; i <= MAX_INCLUDE_CONFIRMATIONS; i += 1) await recordIncludeConfirmation(root, record(REPO, digestOf({ list: i })));
    expect(await isIncludeListConfirmed(root, REPO, digestOf({ list: 0 }))).toBe(false);
    expect(await isIncludeListConfirmed(root, REPO, digestOf({ list: 1 }))).toBe(true);
    expect(await isIncludeListConfirmed(root, REPO, digestOf({ list: MAX_INCLUDE_CONFIRMATIONS }))).toBe(true);
  });

  it('reads a damaged file as confirming nothing, and replaces it with the next confirmation', async () => {
    const root = await ForkRoot.open(tempDir());
    const file = includeConfirmationsFile(root);
    mkdirSync(path.dirname(file));
    writeFileSync(file, JSON.stringify({ schema_version: 1, confirmations: [{ ...record(REPO, LIST), extra: true }] }));
    expect(await isIncludeListConfirmed(root, REPO, LIST)).toBe(false);
    await recordIncludeConfirmation(root, record(REPO, LIST));
    expect(await isIncludeListConfirmed(root, REPO, LIST)).toBe(true);
  });

  it('refuses a symlinked settings file', async () => {
    const root = await ForkRoot.open(tempDir());
    const elsewhere = path.join(tempDir(), 'planted.json');
    writeFileSync(elsewhere, JSON.stringify({ schema_version: 1, confirmations: [record(REPO, LIST)] }));
    mkdirSync(path.dirname(includeConfirmationsFile(root)));
    symlinkSync(elsewhere, includeConfirmationsFile(root));
    await expect(isIncludeListConfirmed(root, REPO, LIST)).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    await expect(recordIncludeConfirmation(root, record(REPO, LIST))).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
  });
});
