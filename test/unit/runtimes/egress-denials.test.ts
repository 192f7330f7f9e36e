/**
 * The recorded egress denials are stored input: read bounded, never from a FIFO or through a link,
 * and a line that is not a denial is skipped rather than trusted.
 */
import { execFileSync } from 'node:child_process';
import { symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { denialRecorder, readEgressDenials } from '../../../main/runtimes/supervisor/egress-denials';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('readEgressDenials', () => {
  it('reads what the recorder wrote, skipping lines that are not denials; none when nothing was recorded', async () => {
    const file = path.join(tempDir('citadel-denials-'), 'egress-denials.jsonl');
    expect(await readEgressDenials(file)).toEqual([]);
    const record = denialRecorder(file);
    record({ host: 'elsewhere.example.test', port: 443, reason: 'host_not_allowed' });
    writeFileSync(file, '{"host":"x","port":1,"reason":"host_not_allowed","trusted":true}\nnot json\n', { flag: 'a' });
    record({ host: null, port: null, reason: 'malformed_request' });
    expect(await readEgressDenials(file)).toEqual([
      { host: 'elsewhere.example.test', port: 443, reason: 'host_not_allowed' },
      { host: null, port: null, reason: 'malformed_request' },
    ]);
  });

  it.each([
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file]), /not_regular_file/],
    ['a symlink', (file: string) => symlinkSync('/etc/hostname', file), /symlink_refused/],
    [
      'a file larger than any the recorder writes',
      (file: string) => {
        writeFileSync(file, '');
        truncateSync(file, 4 * 1024 * 1024 + 1);
      },
      /larger than/,
    ],
  ])('refuses %s with a typed error, at once', async (_what, plant, message) => {
    const file = path.join(tempDir('citadel-denials-'), 'egress-denials.jsonl');
    plant(file);
    await expect(readEgressDenials(file)).rejects.toMatchObject({ code: 'RUN_STATUS_UNREADABLE', message: expect.stringMatching(message) });
  });
});
