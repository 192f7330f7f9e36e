/**
 * Output an agent prints is judged on the Electron main process (the branchOutput channel, re-read
 * every 2 s while a branch runs, and Codex's live command summaries): a long line must not stall
 * it, whatever letters it repeats, and what reaches a terminal must not carry codes it acts on.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { secretLike } from '../../../main/orchestrator/live-redaction';
import { HIDDEN_LINE, keptOutput, redactedOutput } from '../../../main/orchestrator/output-text';
import { CITADEL_RULES } from '../../../main/publish/redaction/citadel-rules';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const KIB = 1024;

/** Long lines that once took seconds to minutes each (every rule read on from each of their letters). */
const LONG_LINES: Record<string, string> = {
  '64 KiB of "key"': 'key'.repeat((64 * KIB) / 3),
  '64 KiB of "x"': 'x'.repeat(64 * KIB),
  '256 KiB of "a"': 'a'.repeat(256 * KIB),
  '128 KiB of "mysql "': 'mysql '.repeat((128 * KIB) / 6),
  '64 KiB of backslashes': '\\'.repeat(64 * KIB),
};

// Far above what these take (tens of milliseconds on a shared CI core), far below what they took.
const BOUND_MS = 500;

function elapsed(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

async function elapsedAsync(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

describe('a long line is judged in time linear in its length', () => {
  // The first scan loads secretlint's rules; that is not the line's cost.
  beforeAll(() => secretLike(['warm up']));

  const urlRule = CITADEL_RULES.find(({ id }) => id === 'citadel/url-credentials');

  for (const [name, line] of Object.entries(LONG_LINES)) {
    it(`${name}: the URL rule, secretLike and redactedOutput each answer within ${BOUND_MS} ms and pass it`, async () => {
      let matched = true;
      expect(elapsed(() => (matched = urlRule?.matches(line) ?? true))).toBeLessThan(BOUND_MS);
      expect(matched).toBe(false);
      let hidden: boolean[] = [];
      expect(await elapsedAsync(async () => (hidden = await secretLike([line])))).toBeLessThan(BOUND_MS);
      expect(hidden).toEqual([false]);
      let shown = '';
      expect(await elapsedAsync(async () => (shown = await redactedOutput(line)))).toBeLessThan(BOUND_MS);
      expect(shown).toBe(line);
    });
  }

  it('a secret at the end of a long line still hides it', async () => {
    const password = ['hunt', 'er2'].join('');
    const lines = [
      `${'x'.repeat(64 * KIB)} postgres://admin:${password}@db.internal:5432/app`,
      `${'key'.repeat((64 * KIB) / 3)} API_KEY=${password}`,
      `${'mysql '.repeat((64 * KIB) / 6)}-u root -p${password}`,
      `${'a'.repeat(256 * KIB)} DB_PASSWORD=${password}`,
    ];
    expect(await secretLike(lines)).toEqual([true, true, true, true]);
    expect(await redactedOutput(lines.join('\n'))).toBe([HIDDEN_LINE, HIDDEN_LINE, HIDDEN_LINE, HIDDEN_LINE].join('\n'));
  });
});

describe('codes a terminal acts on are not passed to it', () => {
  const C1_AND_BIDI = [
    ['an 8-bit CSI that clears the screen', 'before\u009b2Jafter', 'beforeafter'],
    ['an 8-bit OSC hyperlink', 'see \u009d8;;https://evil.example/\u009chere\u009d8;;\u009c now', 'see here now'],
    ['a lone C1 control', 'a\u0085b\u0090c\u009fd\u0080e', 'abcde'],
    ['bidirectional overrides and isolates', 'x\u202a\u202b\u202c\u202d\u202ey\u2066\u2067\u2068\u2069z', 'xyz'],
    ['the 7-bit forms, as before', '\x1b[31mred\x1b[0m \x1b]8;;https://evil.example/\x07link\x1b]8;;\x07', 'red link'],
  ] as const;

  it('a kept log comes back without C1 controls or bidirectional overrides, tabs kept', async () => {
    const file = path.join(tempDir('citadel-output-'), 'stdout.log');
    writeFileSync(file, `${C1_AND_BIDI.map(([, raw]) => raw).join('\n')}\n\tindented\n`);
    const kept = await keptOutput(file, 'stdout', { bytes: 64 * KIB, lines: null });
    expect(kept.text).toBe([...C1_AND_BIDI.map(([, , shown]) => shown), '\tindented'].join('\n'));
    expect(kept.text).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('a setup step\'s tail shown by the same rules', async () => {
    for (const [what, raw, shown] of C1_AND_BIDI) expect(await redactedOutput(raw), what).toBe(shown);
  });
});
