import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const CHILD_ENTRY = fileURLToPath(new URL('./fixtures/key-store-child.ts', import.meta.url));
const KEYRING_ENTRY = createRequire(import.meta.url).resolve('@napi-rs/keyring');

export interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: Record<string, unknown>;
  readonly stderr: string;
  readonly elapsedMs: number;
}

/**
 * Bundles the key-store child once into a temp folder. The native keyring package stays external,
 * imported by absolute URL, so the bundle runs from anywhere with the repository's copy.
 */
export async function buildKeyStoreChild(): Promise<{ script: string; dispose: () => void }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'citadel-key-child-'));
  const script = path.join(dir, 'key-store-child.mjs');
  await build({
    entryPoints: [CHILD_ENTRY],
    outfile: script,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
    plugins: [
      {
        name: 'keyring-by-absolute-url',
        setup(plugin) {
          plugin.onResolve({ filter: /^@napi-rs\/keyring$/ }, () => ({ path: pathToFileURL(KEYRING_ENTRY).href, external: true }));
        },
      },
    ],
  });
  return { script, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs the child; kills it after `killAfterMs` so a hung keychain call fails the test instead of hanging it. */
export function runKeyStoreChild(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  killAfterMs = 20_000,
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      let output: Record<string, unknown> = {};
      try {
        output = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        output = { unparsed: stdout };
      }
      resolve({ code, signal, output, stderr, elapsedMs: Date.now() - started });
    });
  });
}
