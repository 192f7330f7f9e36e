import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { writePrivateFile, writePrivateJson } from '../../../main/store/atomic-file';
import { attemptKey } from '../../../main/store/fork-layout';
import { CHECKPOINT, DECISION_RECORD, readStoredJson, readStoredText, UNTRUSTED, type ForkFile } from '../../../main/store/read-stored-json';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const Schema = z.strictObject({ n: z.number() });
const FORK_ID = `fork-${'0'.repeat(26)}`;
const forkFile = (missing: ForkFile['missing']): ForkFile => ({ trust: 'record', missing, forkId: FORK_ID });

/** One file per condition a stored file can be in. */
function files() {
  const dir = tempDir();
  const at = (name: string, text?: string): string => {
    const file = path.join(dir, name);
    if (text !== undefined) writeFileSync(file, text);
    return file;
  };
  const directory = path.join(dir, 'dir.json');
  mkdirSync(directory);
  return { valid: at('valid.json', '{"n":1}'), missing: at('missing.json'), notJson: at('bad.json', '{'), offSchema: at('off.json', '{"n":"1"}'), directory };
}

describe('readStoredJson', () => {
  it('untrusted: returns every outcome, never throws', async () => {
    const f = files();
    expect(await readStoredJson(f.valid, Schema, UNTRUSTED)).toEqual({ status: 'valid', value: { n: 1 } });
    expect(await readStoredJson(f.missing, Schema, UNTRUSTED)).toMatchObject({ status: 'unreadable', error: { code: 'ENOENT' } });
    expect(await readStoredJson(f.directory, Schema, UNTRUSTED)).toMatchObject({ status: 'unreadable', error: { code: 'not_regular_file' } });
    expect((await readStoredJson(f.notJson, Schema, UNTRUSTED)).status).toBe('not_json');
    expect((await readStoredJson(f.offSchema, Schema, UNTRUSTED)).status).toBe('off_schema');
  });

  it('checkpoint: anything but a valid file is null', async () => {
    const f = files();
    expect(await readStoredJson(f.valid, Schema, CHECKPOINT)).toEqual({ n: 1 });
    for (const file of [f.missing, f.directory, f.notJson, f.offSchema]) expect(await readStoredJson(file, Schema, CHECKPOINT)).toBeNull();
  });

  it('decision record: null when never written, FORK_RECORD_INVALID (no details) when damaged', async () => {
    const f = files();
    expect(await readStoredJson(f.valid, Schema, DECISION_RECORD)).toEqual({ n: 1 });
    expect(await readStoredJson(f.missing, Schema, DECISION_RECORD)).toBeNull();
    await expect(readStoredJson(f.notJson, Schema, DECISION_RECORD)).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', message: 'bad.json is not valid JSON', details: undefined });
    await expect(readStoredJson(f.offSchema, Schema, DECISION_RECORD)).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', message: 'off.json does not match its schema' });
    await expect(readStoredJson(f.directory, Schema, DECISION_RECORD)).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', message: 'dir.json cannot be read (not_regular_file)' });
  });

  it('fork file: refused when missing or damaged, naming the fork; a missing fork record is FORK_NOT_FOUND', async () => {
    const f = files();
    const details = (file: string) => ({ fork_id: FORK_ID, file });
    expect(await readStoredJson(f.valid, Schema, forkFile('invalid'))).toEqual({ n: 1 });
    await expect(readStoredJson(f.missing, Schema, forkFile('invalid'))).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', details: details('missing.json') });
    await expect(readStoredJson(f.missing, Schema, forkFile('fork_not_found'))).rejects.toMatchObject({ code: 'FORK_NOT_FOUND', message: `no fork ${FORK_ID}`, details: { fork_id: FORK_ID } });
    await expect(readStoredJson(f.directory, Schema, forkFile('fork_not_found'))).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', details: details('dir.json') });
    await expect(readStoredJson(f.notJson, Schema, forkFile('invalid'))).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', message: `bad.json of ${FORK_ID} is not valid JSON`, details: details('bad.json') });
    await expect(readStoredJson(f.offSchema, Schema, forkFile('invalid'))).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', message: `off.json of ${FORK_ID} does not match its schema`, details: details('off.json') });
    expect(await readStoredText(f.notJson, forkFile('invalid'))).toBe('{');
    await expect(readStoredText(f.missing, forkFile('invalid'))).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', details: details('missing.json') });
  });
});

describe('private files', () => {
  it('are owner-only whatever the umask', async () => {
    const dir = tempDir();
    const previous = process.umask(0o022);
    try {
      await writePrivateFile(path.join(dir, 'a.txt'), 'a');
      await writePrivateJson(path.join(dir, 'b.json'), { b: 1 });
    } finally {
      process.umask(previous);
    }
    expect(statSync(path.join(dir, 'a.txt')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, 'b.json')).mode & 0o777).toBe(0o600);
  });
});

describe('attemptKey', () => {
  it('is the journal key of one branch attempt', () => {
    expect(attemptKey('branch-claude', 2)).toBe('branch-claude#2');
  });
});
