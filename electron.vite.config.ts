import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'electron-vite';
import { resolve } from 'node:path';
import { NATIVE_EXTERNALS } from './build/bundle-externals.mjs';

/**
 * Mission Control's three bundles, each in its default folder: out/main, out/preload and
 * out/renderer (`electron-vite build --outDir <dir>` moves all three). The CLI is bundled apart,
 * into out/cli, by build/build-cli.mjs.
 */
export default defineConfig({
  main: {
    build: {
      // Every dependency is bundled, as in the CLI: the packaged app then needs no node_modules but
      // the native keychain binding, which electron-builder.yml copies explicitly (its collector
      // was seen dropping transitive and platform packages). electron and built-ins stay external.
      externalizeDeps: false,
      rolldownOptions: { input: { main: resolve('main/app/main.ts') }, external: [...NATIVE_EXTERNALS] },
    },
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
