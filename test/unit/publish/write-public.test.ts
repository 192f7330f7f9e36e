/**
 * `--output FILE` of replay and proof: the operator's file is replaced whole; anything at that path
 * that is not a regular file, or a path that cannot be written, is a typed refusal that writes nothing.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePublic } from '../../../main/publish/export-public';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const ARTIFACT = { text: '{"kind":"citadel_replay"}\n', digest: 'sha256:0' };

describe('writePublic', () => {
  it('replaces a regular file whole, and refuses a FIFO at the path at once (never opened, never replaced)', async () => {
    const dir = tempDir('citadel-output-');
    const file = path.join(dir, 'replay.json');
    writeFileSync(file, 'old');
    await writePublic(ARTIFACT, file);
    expect(readFileSync(file, 'utf8')).toBe(ARTIFACT.text);

    const fifo = path.join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    await expect(writePublic(ARTIFACT, fifo)).rejects.toMatchObject({ code: 'OUTPUT_FILE_UNWRITABLE', message: expect.stringMatching(/not a regular file/) });
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it.each([
    ['a directory', (dir: string) => (mkdirSync(path.join(dir, 'out.json')), path.join(dir, 'out.json'))],
    ['a path whose folder does not exist', (dir: string) => path.join(dir, 'missing', 'out.json')],
    ['a path under a regular file', (dir: string) => (writeFileSync(path.join(dir, 'plain'), ''), path.join(dir, 'plain', 'out.json'))],
  ])('refuses %s with OUTPUT_FILE_UNWRITABLE and leaves nothing behind', async (_what, target) => {
    const dir = tempDir('citadel-output-');
    const file = target(dir);
    const before = readdirSync(dir).sort();
    await expect(writePublic(ARTIFACT, file)).rejects.toMatchObject({ code: 'OUTPUT_FILE_UNWRITABLE' });
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
