import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { CONFIG_DEFAULTS, VARIABLES } from '../lambda/contract/environment.js';
import { createLogGroup } from './log-group.js';
import { acknowledgeNagFindings } from './nag.js';
import type { ReceiverSettings } from './receiver-settings.js';
import type { FunctionPropsOverrides } from './webhook-receiver-props.js';

/** Runtime of both functions; esbuild's target (`node24`) follows from it. */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_24_X;

/**
 * esbuild options of both functions. Exported so `npm run bench` builds the receiver exactly as
 * deployed when it measures the bundle's size and cold start.
 */
export const LAMBDA_BUNDLING: nodejs.BundlingOptions = {
  format: nodejs.OutputFormat.ESM,
  // Prefer the packages' ES module builds; fall back to CommonJS where there is none.
  mainFields: ['module', 'main'],
  // ES modules have no require(). Today's bundles make no require() call, but a CommonJS
  // dependency added later would call it for Node built-ins and fail only at run time
  // ("Dynamic require ... is not supported"); this defines it up front.
  banner:
    "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  minify: true,
  sourceMap: true,
  // Stack traces need the mappings, not the sources: keeps the asset small.
  sourcesContent: false,
  bundleAwsSDK: true,
};

/** Repository root: the Lambda entry files and the lock file esbuild resolves against live here. */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Where `npm run build` puts the prebundled Lambda code, next to the compiled module
 * (`dist/assets/`); see {@link prebundledAssetDir}.
 */
const PREBUNDLED_ASSETS = new URL('assets/', import.meta.url);

/**
 * The folder of an entry's prebundled code: `assets/<folder of the entry>/index.mjs` next to this
 * module, so `lambda/receiver/index.ts` becomes `assets/receiver/`. `npm run build` writes it
 * with {@link LAMBDA_BUNDLING}; the folder exists only in the built package (`dist/`).
 * @param entry - entry file, relative to the repository root
 * @param assetsRoot - the assets folder; this module's by default
 */
export function prebundledAssetDir(entry: string, assetsRoot: URL = PREBUNDLED_ASSETS): string {
  return fileURLToPath(new URL(`${basename(dirname(entry))}/`, assetsRoot));
}

/** What differs between the receiver and the consumer function. */
export interface FunctionOptions {
  /** Entry file, relative to the repository root. */
  readonly entry: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly description: string;
  readonly environment: Record<string, string>;
  readonly reservedConcurrentExecutions?: number | undefined;
  /** The user's additions ({@link FunctionPropsOverrides}), applied over the construct's choices. */
  readonly overrides?: FunctionPropsOverrides | undefined;
}

/**
 * The function's code. Installed as a package (`dist/`), the construct uses the code `npm run
 * build` prebundled next to it ({@link prebundledAssetDir}): a user's `cdk synth` then needs no
 * esbuild, Docker, lock file or Lambda sources, none of which the package ships. In this
 * repository (run from `lib/` by tsx) there is no such folder, so esbuild bundles the entry from
 * source at synth time, with the same {@link LAMBDA_BUNDLING} options: an edit under `lambda/`
 * is deployed without a build step.
 */
function functionCode(
  entry: string,
): Pick<
  nodejs.NodejsFunctionProps,
  'code' | 'handler' | 'entry' | 'projectRoot' | 'depsLockFilePath' | 'bundling'
> {
  const prebundled = prebundledAssetDir(entry);
  if (existsSync(prebundled)) {
    // esbuild's ESM output is `index.mjs`, exporting `handler`, as NodejsFunction names it.
    return { code: lambda.Code.fromAsset(prebundled), handler: 'index.handler' };
  }
  return {
    entry: join(PROJECT_ROOT, entry),
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
    handler: 'handler',
    bundling: LAMBDA_BUNDLING,
  };
}

/**
 * A Node.js 24 ARM64 function bundled by esbuild (no Docker), at build time for the package or
 * at synth time in this repository (see {@link functionCode}): minified ESM with the AWS SDK
 * inside, so the deployed code runs the SDK versions the tests ran, and source maps for readable
 * stack traces. Its role may only write to its own log group: no managed policy.
 */
export function createFunction(
  scope: Construct,
  id: string,
  settings: ReceiverSettings,
  options: FunctionOptions,
): nodejs.NodejsFunction {
  const logGroup = createLogGroup(scope, `${id}Logs`, settings.logRetention);
  const role = new iam.Role(scope, `${id}Role`, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: `Execution role of ${options.description}`,
  });
  logGroup.grantWrite(role);
  const fn = new nodejs.NodejsFunction(scope, id, {
    ...functionCode(options.entry),
    runtime: LAMBDA_RUNTIME,
    architecture: lambda.Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    description: options.description,
    role,
    logGroup,
    // JSON lets Lambda filter its own lines by level (systemLogLevel).
    loggingFormat: lambda.LoggingFormat.JSON,
    systemLogLevelV2: settings.systemLogLevel,
    tracing: settings.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
    ...(options.reservedConcurrentExecutions === undefined
      ? {}
      : { reservedConcurrentExecutions: options.reservedConcurrentExecutions }),
    ...options.overrides,
    environment: {
      ...options.overrides?.environment,
      [VARIABLES.serviceName]: settings.serviceName,
      [VARIABLES.metricsNamespace]: CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
      NODE_OPTIONS: '--enable-source-maps',
      ...options.environment,
    },
  });
  acknowledgeNagFindings(fn, {
    pack: 'Serverless',
    rule: 'Serverless-LambdaDLQ',
    reason:
      "Serverless-LambdaDLQ (dead-letter queue): the function is only invoked synchronously (by its front door or by the SQS event source mapping), and Lambda sends nothing to a function's dead-letter queue on those paths; failed queue messages go to the queue's own dead-letter queue.",
  });
  if (settings.tracing) {
    // Active tracing adds xray:PutTraceSegments and PutTelemetryRecords on *, the only resource
    // X-Ray accepts for them.
    acknowledgeNagFindings(role, {
      pack: 'AwsSolutions',
      rule: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "AwsSolutions-IAM5 (wildcard resource): X-Ray's PutTraceSegments and PutTelemetryRecords support no resource-level permissions, so the tracing grant CDK adds must name every resource.",
    });
  } else {
    acknowledgeNagFindings(fn, {
      pack: 'Serverless',
      rule: 'Serverless-LambdaTracing',
      reason:
        'Serverless-LambdaTracing (X-Ray): active tracing costs more per call than the rest of the receiver, so it is off by default and turned on with the tracing prop when needed.',
    });
  }
  return fn;
}
