import { defineConfig } from 'vitest/config';

/** Real vendor CLIs against scripted loopback model servers (`npm run test:vendors`); slow, so kept out of `npm test`. */
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/vendors/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    // Two cores and CLIs of several hundred MB: one file at a time keeps timings honest.
    fileParallelism: false,
  },
});
