import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores on CI: process-level isolation, with a generous ceiling for the
    // tests that synthesize CDK apps or start the local receiver as a process.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
