import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { CONFIG_DEFAULTS } from '../lambda/receiver/config.js';
import { createLogGroup } from './log-group.js';
import { acknowledgeNagFindings } from './nag.js';
import type { ReceiverSettings } from './receiver-settings.js';

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

/** What differs between the receiver and the consumer function. */
export interface FunctionOptions {
  /** Entry file, relative to the repository root. */
  readonly entry: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly description: string;
  readonly environment: Record<string, string>;
  readonly reservedConcurrentExecutions?: number | undefined;
}

/**
 * A Node.js 24 ARM64 function bundled locally by esbuild (no Docker): minified ESM with the AWS
 * SDK inside, so the deployed code runs the SDK versions the tests ran, and source maps for
 * readable stack traces. Its role may only write to its own log group: no managed policy.
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
    entry: join(PROJECT_ROOT, options.entry),
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
    handler: 'handler',
    runtime: LAMBDA_RUNTIME,
    architecture: lambda.Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    description: options.description,
    role,
    logGroup,
    tracing: settings.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
    ...(options.reservedConcurrentExecutions === undefined
      ? {}
      : { reservedConcurrentExecutions: options.reservedConcurrentExecutions }),
    environment: {
      POWERTOOLS_SERVICE_NAME: settings.serviceName,
      POWERTOOLS_METRICS_NAMESPACE: CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
      NODE_OPTIONS: '--enable-source-maps',
      ...options.environment,
    },
    bundling: LAMBDA_BUNDLING,
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
