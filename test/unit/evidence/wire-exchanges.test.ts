/**
 * The gateway's wire record is stored input: read bounded, never from a FIFO or through a link, a
 * line that is not an exchange skipped rather than trusted, and no file meaning no wire facts.
 */
import { execFileSync } from 'node:child_process';
import { symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_WIRE_FILE_BYTES, readWireExchanges, wireFile } from '../../../main/evidence/wire-exchanges';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const LINE = {
  at: '2026-12-05T22:00:00.000Z',
  method: 'POST',
  path: '/v1/responses',
  outcome: 'completed',
  refusal: null,
  status: 200,
  requested_model: 'gpt-5.1-codex-mini',
  served_model: 'gpt-5.1-codex-mini',
  input_tokens: 10,
  output_tokens: 2,
  first_byte_ms: 3,
  duration_ms: 9,
};

describe('readWireExchanges', () => {
  it('is null without a file, and reads the exchanges, skipping what is not one (a cut line, an extra field)', async () => {
    const file = wireFile(path.join(tempDir('citadel-wire-'), 'run.json'));
    expect(path.basename(file)).toBe('wire.jsonl');
    expect(await readWireExchanges(file)).toBeNull();
    writeFileSync(file, `${JSON.stringify(LINE)}\n${JSON.stringify({ ...LINE, trusted: true })}\n{"at":"2026-12\n${JSON.stringify({ ...LINE, outcome: 'refused', refusal: 'mcp_servers_refused', status: null })}\n`);
    expect(await readWireExchanges(file)).toEqual([LINE, { ...LINE, outcome: 'refused', refusal: 'mcp_servers_refused', status: null }]);
  });

  it.each([
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file]), /not_regular_file/],
    ['a symlink', (file: string) => symlinkSync('/etc/hostname', file), /symlink_refused/],
    [
      'a file larger than any gateway writes',
      (file: string) => {
        writeFileSync(file, '');
        truncateSync(file, MAX_WIRE_FILE_BYTES + 1);
      },
      /larger than/,
    ],
  ])('refuses %s with a typed error, at once', async (_what, plant, message) => {
    const file = path.join(tempDir('citadel-wire-'), 'wire.jsonl');
    plant(file);
    await expect(readWireExchanges(file)).rejects.toMatchObject({ code: 'RUN_STATUS_UNREADABLE', message: expect.stringMatching(message) });
  });
});
