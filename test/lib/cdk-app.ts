import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type AppProps } from 'aws-cdk-lib';
import { afterAll } from 'vitest';

/** The context `cdk synth` passes to the app from cdk.json (feature flags), so tests synthesize the same template. */
export const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'),
).context;

/** Context that turns esbuild bundling off: template assertions do not need the Lambda code. */
export const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

/**
 * Cloud assemblies of the importing test file go under the test run's temp folder (TMPDIR, which
 * `test/support/temp-folder.ts` points under the checkout's git-ignored `.local/`, never the
 * system temp folder), and are removed when the file's tests end.
 */
let scratch: string | undefined;
afterAll(() => {
  if (scratch !== undefined) {
    rmSync(scratch, { recursive: true, force: true });
  }
});

/** A fresh, empty cloud assembly directory, removed after the importing file's tests. */
export function testOutdir(): string {
  scratch ??= mkdtempSync(join(tmpdir(), 'cdk-test-'));
  return mkdtempSync(join(scratch, 'out-'));
}

/** App props with cdk.json's context, then `context` on top, synthesizing into {@link testOutdir}. */
export function appProps(context: Record<string, unknown> = {}): AppProps {
  return { context: { ...CDK_JSON_CONTEXT, ...context }, outdir: testOutdir() };
}

/** An app like `cdk synth` builds, without bundling. */
export function templateTestApp(): App {
  return new App(appProps(SKIP_BUNDLING));
}
