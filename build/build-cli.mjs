// Bundles the CLI into one ESM file that runs under plain Node >= 20 (no Electron).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function buildCli() {
  await build({
    absWorkingDir: root,
    // The CLI, the detached runtime supervisor and the demo's simulated runtimes ship side by side.
    entryPoints: {
      citadel: 'main/cli/citadel.ts',
      supervisor: 'main/runtimes/supervisor/supervisor-main.ts',
      'simulated-runtime': 'main/demo/simulated-runtime.ts',
    },
    outdir: 'out/cli',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    sourcemap: true,
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli();
}
