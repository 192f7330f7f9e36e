import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './run-cli';

// The renderer section of electron.vite.config.ts (root, Svelte plugin, index.html input), built with
// Vite's JS API. It runs in a child process because the test worker's NODE_ENV=test would make
// Vite and the Svelte plugin produce a development build.
const BUILD_SCRIPT = `
import { build } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import path from 'node:path';
const [outDir] = process.argv.slice(1);
const root = path.resolve('renderer');
await build({
  configFile: false,
  logLevel: 'error',
  mode: 'production',
  root,
  base: './',
  plugins: [svelte()],
  build: { outDir, emptyOutDir: true, rolldownOptions: { input: path.join(root, 'index.html') } },
});
`;

/**
 * Builds the renderer, fresh, into `outDir` (not out/renderer, which other runs and builds share),
 * so a browser test always serves the sources it is testing.
 */
export function buildRenderer(outDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', BUILD_SCRIPT, path.resolve(outDir)], {
      cwd: REPO_ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(path.resolve(outDir)) : reject(new Error(`the renderer build failed (exit ${code}):\n${stderr}`))));
  });
}
