import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { transformSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import '../../../renderer/src/lib/zod-jitless';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const work = mkdtempSync(path.join(tmpdir(), 'citadel-zod-jitless-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A fresh Node process, as a fresh window is: optionally runs zod-jitless.ts first, then loads zod,
 * builds and parses an object schema, and prints how many times `new Function` was called.
 */
async function functionsConstructed(withJitless: boolean): Promise<number> {
  const jitless = path.join(work, 'zod-jitless.mjs');
  writeFileSync(jitless, transformSync(readFileSync(path.join(REPO_ROOT, 'renderer/src/lib/zod-jitless.ts'), 'utf8'), { loader: 'ts', format: 'esm' }).code);
  const script = `
let constructed = 0;
globalThis.Function = new Proxy(globalThis.Function, { construct: (target, args) => ((constructed += 1), Reflect.construct(target, args)) });
${withJitless ? `await import(${JSON.stringify(`file://${jitless}`)});` : ''}
const { z } = await import('zod');
z.object({ a: z.string(), b: z.object({ c: z.number() }) }).parse({ a: 'x', b: { c: 1 } });
process.stdout.write(String(constructed));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT });
  return Number(stdout);
}

describe('zod without generated code (the shells’ CSP forbids eval)', () => {
  it('is configured by zod-jitless before zod has loaded, so zod never constructs a Function', async () => {
    expect(await functionsConstructed(true)).toBe(0);
    // The control: without it zod probes for, and compiles with, `new Function`.
    expect(await functionsConstructed(false)).toBeGreaterThan(0);
  });

  it('reaches a zod that had already loaded, through the one config zod reads', () => {
    expect(z.config().jitless).toBe(true);
  });
});
