import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'electron-vite';
import { resolve } from 'node:path';

/**
 * Mission Control's three bundles, each in its default folder: out/main, out/preload and
 * out/renderer (`electron-vite build --outDir <dir>` moves all three). The CLI is bundled apart,
 * into out/cli, by build/build-cli.mjs.
 */
export default defineConfig({
  main: {
    // Dependencies stay external (electron-vite's default): they ship in the packaged node_modules.
    build: { rolldownOptions: { input: { main: resolve('main/app/main.ts') } } },
  },
  preload: {
    build: {
      // A sandboxed preload can require only `electron` and a few built-ins, and never runs ESM:
      // everything it imports (the contract, zod) is bundled into one CommonJS file.
      externalizeDeps: false,
      rolldownOptions: { input: { index: resolve('preload/index.ts') }, output: { format: 'cjs' } },
    },
  },
  renderer: {
    root: resolve('renderer'),
    plugins: [svelte()],
    build: { rolldownOptions: { input: resolve('renderer/index.html') } },
  },
});
