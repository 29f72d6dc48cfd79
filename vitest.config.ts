import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores on CI: process-level isolation, with a generous ceiling for the
    // tests that synthesize CDK apps or start the local receiver as a process.
    pool: 'forks',
    // Temporary files of the whole run go under .local/, not the system temp folder.
    globalSetup: ['test/support/temp-folder.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The SDK's documented switch for its Node 20 end-of-support notice, for the test run only.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
