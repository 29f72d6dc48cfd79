import { readFileSync } from 'node:fs';
import { App, type AppProps } from 'aws-cdk-lib';

/** The context `cdk synth` passes to the app from cdk.json (feature flags), so tests synthesize the same template. */
export const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'),
).context;

/** Context that turns esbuild bundling off: template assertions do not need the Lambda code. */
export const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

/** App props with cdk.json's context, then `context` on top. */
export function appProps(context: Record<string, unknown> = {}): AppProps {
  return { context: { ...CDK_JSON_CONTEXT, ...context } };
}

/** An app like `cdk synth` builds, without bundling. */
export function templateTestApp(): App {
  return new App(appProps(SKIP_BUNDLING));
}
