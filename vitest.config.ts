import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * Test tiers, one vitest project each, chosen by where a test file lies so that no list needs
 * keeping: `npm test` runs every tier, `npm run test:unit` the fast loop. A file two rules match
 * is in the first tier listed; a file none matches, in a new folder too, is a unit test until a
 * rule here says otherwise (test/vitest-config.test.ts checks that every file is in exactly one tier).
 */
const TEST_TIERS = {
  /** Headless Chromium driving a page: `*-page.test.ts`, wherever it lies. */
  browser: { include: ['test/**/*-page.test.ts'], timeoutMs: 60_000 },
  /** `npm run build`, `npm pack`, a fresh app installing the tarball, the API report. */
  package: { include: ['test/build/**/*.test.ts'], timeoutMs: 180_000 },
  /**
   * What opens a port or starts a process: an embedded emulator (local-aws-sqs, s3rver,
   * dynalite), a local server, `npm start`, the tools as `npm run` starts them, faults, replay
   * and rotation over the wire: `test/e2e/`, and `*.e2e.test.ts` beside the code it covers.
   */
  e2e: { include: ['test/e2e/**/*.test.ts', 'test/**/*.e2e.test.ts'], timeoutMs: 60_000 },
  /**
   * The deploy-fidelity suite: the app synthesized per variant, its IAM policies simulated for
   * every runtime call, and the bundled functions from `cdk.out` run with the template's
   * environment against local SQS, Secrets Manager and DynamoDB.
   */
  deploy: { include: ['test/deploy/**/*.test.ts'], timeoutMs: 120_000 },
  /** CDK synthesis (with esbuild bundling and cdk-nag) of the construct, the stack and the app. */
  synth: { include: ['test/lib/**/*.test.ts', 'test/bin/**/*.test.ts'], timeoutMs: 60_000 },
} as const;

/**
 * The tier of every test file no other tier claims: pure tests, the fast loop. Its files share
 * one module graph per worker thread (the SDK, valibot and Powertools load once, not once a file);
 * its setup file refuses to listen on a port or start a process, what the e2e tier is for.
 */
const UNIT = {
  include: ['test/**/*.test.ts'],
  timeoutMs: 20_000,
  run: { pool: 'threads', isolate: false, setupFiles: ['test/support/no-wire.ts'] },
} as const;

/** How a tier's files run unless it says otherwise: each in a process of its own. */
const ISOLATED = { pool: 'forks' } as const;

/** What a tier says of its files. */
interface TierSettings {
  readonly include: readonly string[];
  readonly timeoutMs: number;
  readonly run?: {
    readonly pool: 'threads' | 'forks';
    readonly isolate?: boolean;
    readonly setupFiles?: readonly string[];
  };
}

/** A tier as a vitest project: its files, its timeouts, and what every tier shares. */
function tier(
  name: string,
  { include, timeoutMs, run = ISOLATED }: TierSettings,
  exclude: readonly string[] = [],
): TestProjectInlineConfiguration {
  const { setupFiles = [], ...pool } = run;
  return {
    test: {
      name,
      include: [...include],
      exclude: [...exclude],
      ...pool,
      setupFiles: [...setupFiles],
      testTimeout: timeoutMs,
      hookTimeout: timeoutMs,
      // The SDK's documented switch for its Node 20 end-of-support notice, for the test run only.
      env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    },
  };
}

/** The files the given tiers take, which a later tier leaves to them. */
function claimedBy(tiers: readonly { readonly include: readonly string[] }[]): string[] {
  return tiers.flatMap(({ include }) => include);
}

export default defineConfig({
  test: {
    // Temporary files of the whole run go under .local/, not the system temp folder. Set on the
    // root only: it runs once for the run, before any project's workers start.
    globalSetup: ['test/support/temp-folder.ts'],
    // vitest's default (cores - 1) runs one file at a time on a 2-core machine, though most of
    // the slow files wait on processes they started (npm start, esbuild, synthesis): two at a
    // time overlap those waits.
    maxWorkers: 2,
    projects: [
      ...Object.entries(TEST_TIERS).map(([name, settings], index) =>
        tier(name, settings, claimedBy(Object.values(TEST_TIERS).slice(0, index))),
      ),
      tier('unit', UNIT, claimedBy(Object.values(TEST_TIERS))),
    ],
  },
});
