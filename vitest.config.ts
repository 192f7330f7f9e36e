import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/acceptance/**/*.test.ts'], testTimeout: 20_000 },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], testTimeout: 60_000 },
      },
    ],
  },
});
