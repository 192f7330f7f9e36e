import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Vitest defaults to cores - 1 (one worker here); integration files mostly wait on git and child processes.
    maxWorkers: 2,
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/acceptance/**/*.test.ts', 'test/conformance/**/*.test.ts'], testTimeout: 20_000 },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        // Svelte components in jsdom (@testing-library/svelte needs svelteTesting() in the plugins).
        plugins: [svelte(), svelteTesting()],
        test: {
          name: 'component',
          include: ['test/component/**/*.test.ts'],
          environment: 'jsdom',
          setupFiles: ['test/component/setup.ts'],
          testTimeout: 20_000,
        },
      },
    ],
  },
});
