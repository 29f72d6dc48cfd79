import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest, type Vitest } from 'vitest/node';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every test file under test/, relative to the repository root. */
function testFilesOnDisk(): string[] {
  return readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => join('test', file))
    .sort();
}

describe('Config: vitest.config.ts test tiers', () => {
  let vitest: Vitest;

  beforeAll(async () => {
    // The configuration exactly as `npm test` loads it, without running anything.
    vitest = await createVitest('test', { root: ROOT, watch: false, reporters: [] });
  });
  afterAll(async () => {
    await vitest?.close();
  });

  it('puts every test file in exactly one tier', async () => {
    // Act
    const specifications = await vitest.globTestSpecifications();

    // Assess
    const tiersOf = new Map<string, string[]>();
    for (const { moduleId, project } of specifications) {
      const file = moduleId.slice(ROOT.length);
      tiersOf.set(file, [...(tiersOf.get(file) ?? []), project.name]);
    }
    const files = testFilesOnDisk();
    expect([...tiersOf.keys()].sort()).toEqual(files);
    const notInOne = files.filter((file) => tiersOf.get(file)?.length !== 1);
    expect(notInOne.map((file) => `${file}: ${tiersOf.get(file)?.join(', ')}`)).toEqual([]);
  });

  it.each([
    ['test/newfolder/stack.test.ts', 'unit'],
    ['test/deploy/iam.test.ts', 'deploy'],
    ['test/lambda/core/verify-signature.test.ts', 'unit'],
    ['test/cli/sign.e2e.test.ts', 'e2e'],
    ['test/e2e/local-run.test.ts', 'e2e'],
    ['test/lib/webhook-receiver.test.ts', 'synth'],
    ['test/bin/app.test.ts', 'synth'],
    ['test/build/build-package.test.ts', 'package'],
    ['test/local/inspector/inspector-page.test.ts', 'browser'],
    ['test/e2e/dashboard-page.test.ts', 'browser'],
  ])('puts %s, by where it lies, in the %s tier', (file, tier) => {
    // Act: a file need not exist to be matched, so a new folder is covered too.
    const claimedBy = vitest.projects
      .filter((project) => project.matchesTestGlob(join(ROOT, file)))
      .map(({ name }) => name);

    // Assess
    expect(claimedBy).toEqual([tier]);
  });

  it('gives every tier the run environment and its own timeouts, the slow tiers more time', () => {
    // Act
    const tiers = Object.fromEntries(
      vitest.projects.map(({ name, config }) => [name, config] as const),
    );

    // Assess: the temporary folder is set up once, by the root, for every tier.
    expect(Object.keys(tiers).sort()).toEqual([
      'browser',
      'deploy',
      'e2e',
      'package',
      'synth',
      'unit',
    ]);
    expect(vitest.config.globalSetup).toEqual([join(ROOT, 'test/support/temp-folder.ts')]);
    for (const config of Object.values(tiers)) {
      expect(config.env).toMatchObject({
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      });
      expect(config.hookTimeout).toBe(config.testTimeout);
    }
    const unit = tiers.unit?.testTimeout ?? Number.POSITIVE_INFINITY;
    for (const slow of ['deploy', 'synth', 'e2e', 'package', 'browser']) {
      expect(tiers[slow]?.testTimeout).toBeGreaterThan(unit);
    }
  });

  it('runs the unit tier in shared threads with no ports or processes, and every other file in a process of its own', () => {
    // Act
    const runs = Object.fromEntries(
      vitest.projects.map(({ name, config: { pool, isolate, setupFiles } }) => [
        name,
        { pool, isolate, setupFiles: setupFiles.map((file) => file.slice(ROOT.length)) },
      ]),
    );

    // Assess
    const { unit, ...others } = runs;
    expect(unit).toEqual({
      pool: 'threads',
      isolate: false,
      setupFiles: ['test/support/no-wire.ts'],
    });
    for (const run of Object.values(others)) {
      expect(run).toEqual({ pool: 'forks', isolate: true, setupFiles: [] });
    }
  });
});

describe('Setup: test/support/no-wire.ts, in the unit tier', () => {
  it('refuses a server on a port, naming the tier that runs it', () => {
    // Act
    const listen = () => createServer().listen(0, '127.0.0.1');

    // Assess
    expect(listen).toThrow(
      'A unit test may not listen on a port: name the test file *.e2e.test.ts (the e2e tier, vitest.config.ts) to run it',
    );
  });

  it('refuses a child process, naming the tier that runs it', () => {
    // Act
    const start = () => spawn(process.execPath, ['--version']);

    // Assess
    expect(start).toThrow(
      'A unit test may not start a process: name the test file *.e2e.test.ts (the e2e tier, vitest.config.ts) to run it',
    );
  });
});
