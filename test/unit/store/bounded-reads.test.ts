import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { STORED_FILE_MAX_BYTES, storedFileMaxBytes } from '../../../main/store/fork-layout';
import { Journal } from '../../../main/store/journal';
import { openRegularFile, readBoundedBytes, readBoundedText, readTail } from '../../../main/store/read-bounded-text';
import { readStoredJson, readStoredText, UNTRUSTED, type ForkFile } from '../../../main/store/read-stored-json';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Every stored file is opened without following a symlink and non-blocking, checked on the open
 * descriptor, and read up to its kind's limit (issue 12). A FIFO would hang a plain read for ever
 * (no writer ever comes), so each FIFO case fails by the test timeout if the open ever blocks.
 */
const tempDir = useTempDirs();
const FORK_ID = `fork-${'0'.repeat(26)}`;
const FORK_FILE: ForkFile = { trust: 'record', missing: 'invalid', forkId: FORK_ID };
const Schema = z.strictObject({ n: z.number() });

function fixtures() {
  const dir = tempDir();
  const at = (name: string): string => path.join(dir, name);
  const fifo = at('contract.json');
  execFileSync('mkfifo', [fifo]);
  const target = at('target.json');
  writeFileSync(target, '{"n":1}');
  const linkToFile = at('request.json');
  symlinkSync(target, linkToFile);
  const linkToZero = at('signer.json');
  symlinkSync('/dev/zero', linkToZero);
  const directory = at('fork.json');
  mkdirSync(directory);
  return { dir, at, fifo, target, linkToFile, linkToZero, directory };
}

describe('openRegularFile / readBoundedBytes', () => {
  it('refuses a FIFO, a device and a directory on the open descriptor, without blocking', async () => {
    const f = fixtures();
    for (const file of [f.fifo, '/dev/zero', f.directory]) {
      for (const symlinks of ['refuse', 'follow'] as const) expect(await openRegularFile(file, symlinks)).toEqual({ ok: false, reason: 'not_regular_file' });
    }
  });

  it('refuses a symlink when told to, follows it to a regular file otherwise, never to a device', async () => {
    const f = fixtures();
    expect(await readBoundedBytes(f.linkToFile, 100, 'refuse')).toEqual({ ok: false, kind: 'unreadable', reason: 'symlink_refused' });
    expect(await readBoundedBytes(f.linkToZero, 100, 'refuse')).toEqual({ ok: false, kind: 'unreadable', reason: 'symlink_refused' });
    expect(await readBoundedText(f.linkToFile, 100, 'follow')).toEqual({ ok: true, text: '{"n":1}' });
    expect(await readBoundedText(f.linkToZero, 100, 'follow')).toEqual({ ok: false, kind: 'unreadable', reason: 'not_regular_file' });
  });

  it('reads up to the limit and refuses one byte more as file_too_large', async () => {
    const f = fixtures();
    const file = f.at('big.bin');
    writeFileSync(file, Buffer.alloc(200_000, 0x61));
    expect(await readBoundedBytes(file, 200_000, 'refuse')).toMatchObject({ ok: true, bytes: { length: 200_000 } });
    expect(await readBoundedBytes(file, 199_999, 'refuse')).toMatchObject({ ok: false, kind: 'invalid', violation: { rule: 'file_too_large' } });
  });

  it('reads a file whose fstat size is not its length (a pseudo-file) to its end, not to the size fstat gave', async () => {
    // /proc/self/maps is a regular file that fstat calls empty and that reads short one page at a
    // time (measured: 4017 bytes, then 3284): a read that stopped at its first short read gets half.
    const lines = (text: string): number => text.split('\n').length;
    const whole = readFileSync('/proc/self/maps', 'utf8');
    expect(whole.length).toBeGreaterThan(8192);
    const read = await readBoundedText('/proc/self/maps', STORED_FILE_MAX_BYTES.record, 'follow');
    if (!read.ok) throw new Error(`unread: ${JSON.stringify(read)}`);
    // The process's mappings may change between the two reads; half of them would be far off.
    expect(lines(read.text)).toBeGreaterThan(lines(whole) * 0.9);
    expect(read.text.endsWith('\n')).toBe(true);
    expect(await readBoundedBytes('/proc/self/maps', 10, 'follow')).toMatchObject({ ok: false, kind: 'invalid', violation: { rule: 'file_too_large' } });
  });

  it('reads an empty file, and a file of exactly the limit, in full', async () => {
    const f = fixtures();
    const empty = f.at('empty.json');
    writeFileSync(empty, '');
    expect(await readBoundedBytes(empty, 10, 'refuse')).toEqual({ ok: true, bytes: Buffer.alloc(0) });
    const exact = f.at('exact.json');
    writeFileSync(exact, '0123456789');
    expect(await readBoundedText(exact, 10, 'refuse')).toEqual({ ok: true, text: '0123456789' });
    expect(await readBoundedBytes(exact, 9, 'refuse')).toMatchObject({ ok: false, kind: 'invalid', violation: { rule: 'file_too_large' } });
  });

  it('readTail reads only the end, and says when the start was cut', async () => {
    const f = fixtures();
    const file = f.at('stdout.log');
    writeFileSync(file, 'first line\nsecond line\nresult\n');
    expect(await readTail(file, 1000)).toEqual({ ok: true, bytes: Buffer.from('first line\nsecond line\nresult\n'), cut: false, size: 30 });
    expect(await readTail(file, 7)).toEqual({ ok: true, bytes: Buffer.from('result\n'), cut: true, size: 30 });
    expect(await readTail(f.fifo, 7)).toEqual({ ok: false, reason: 'not_regular_file' });
  });
});

describe('stored files', () => {
  it('have a size limit per kind', () => {
    expect(storedFileMaxBytes('/x/forks/f/contract.json')).toBe(STORED_FILE_MAX_BYTES.record);
    expect(storedFileMaxBytes('/x/forks/f/journal.jsonl')).toBe(STORED_FILE_MAX_BYTES.journal);
    expect(storedFileMaxBytes('/x/a/stop-journal.jsonl')).toBe(STORED_FILE_MAX_BYTES.journal);
    expect(storedFileMaxBytes('/x/a/containment.json')).toBe(STORED_FILE_MAX_BYTES.snapshot);
    expect(STORED_FILE_MAX_BYTES.record).toBeLessThan(STORED_FILE_MAX_BYTES.journal);
  });

  it('readStoredJson: a FIFO, a symlink (even to a valid file), /dev/zero behind a symlink and an oversized file are unreadable', async () => {
    const f = fixtures();
    const oversized = f.at('landing.json');
    writeFileSync(oversized, '{"n":1}');
    truncateSync(oversized, STORED_FILE_MAX_BYTES.record + 1);
    expect(await readStoredJson(f.fifo, Schema, UNTRUSTED)).toMatchObject({ status: 'unreadable', error: { code: 'not_regular_file' } });
    expect(await readStoredJson(f.linkToFile, Schema, UNTRUSTED)).toMatchObject({ status: 'unreadable', error: { code: 'symlink_refused' } });
    expect(await readStoredJson(f.linkToZero, Schema, UNTRUSTED)).toMatchObject({ status: 'unreadable', error: { code: 'symlink_refused' } });
    expect(await readStoredJson(oversized, Schema, UNTRUSTED)).toMatchObject({ status: 'unreadable', error: { code: 'file_too_large' } });
    await expect(readStoredJson(f.fifo, Schema, FORK_FILE)).rejects.toMatchObject({
      code: 'FORK_RECORD_INVALID',
      message: `cannot read contract.json of ${FORK_ID}: not_regular_file`,
      details: { fork_id: FORK_ID, file: 'contract.json' },
    });
    await expect(readStoredText(f.fifo, FORK_FILE)).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', details: { file: 'contract.json' } });
  });

  it('a journal that is a FIFO, a symlink or over its limit is FORK_RECORD_INVALID for both readers', async () => {
    const f = fixtures();
    const fifo = f.at('journal.jsonl');
    execFileSync('mkfifo', [fifo]);
    const link = f.at('stop-journal.jsonl');
    symlinkSync('/dev/zero', link);
    const sub = path.join(f.dir, 'attempt');
    mkdirSync(sub);
    const oversized = path.join(sub, 'journal.jsonl');
    writeFileSync(oversized, '');
    truncateSync(oversized, STORED_FILE_MAX_BYTES.journal + 1);
    for (const [file, reason] of [[fifo, 'not_regular_file'], [link, 'symlink_refused'], [oversized, 'file_too_large']] as const) {
      await expect(Journal.open(file)).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', details: { file, reason } });
      await expect(Journal.read(file)).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID', details: { file, reason } });
    }
    // A journal never written is still an empty one.
    expect((await Journal.read(path.join(sub, 'none.jsonl'))).records()).toEqual([]);
  });
});
