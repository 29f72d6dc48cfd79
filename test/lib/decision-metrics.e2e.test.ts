import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CfnElement } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { inheritedEnvironment } from '../../devkit/local-process.js';
import { restApiEvent } from '../support/api-gateway-events.js';
import { bookingPayload, signedCall } from '../support/booking.js';
import type { CfnTemplate } from '../support/deployed-template.js';
import { LOCAL_AWS_SETTINGS, useLocalSqs } from '../support/local-sqs.js';
import {
  filteredDataPoints,
  type TemplateMetricFilter,
  templateMetricFilters,
} from '../support/metric-filters.js';
import { metricSum } from '../support/receiver-metrics.js';
import { type Synthesized, synthesize } from './synthesize.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const ENTRY = pathToFileURL(join(ROOT, 'lambda/receiver/index.ts')).href;
const KEY = 'fresh-environment-key';

/**
 * One execution environment: a fresh Node process that loads the Lambda entry point, invokes it
 * once per event in `EVENTS`, one after the other, and exits, as an environment Lambda shuts
 * down after its last call.
 */
const ENVIRONMENT = `
const { handler } = await import(${JSON.stringify(ENTRY)});
for (const [index, event] of JSON.parse(process.env.EVENTS).entries()) {
  const answer = await handler(event, {
    functionName: 'receiver', functionVersion: '$LATEST', memoryLimitInMB: '192',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:receiver',
    awsRequestId: 'request-' + index, getRemainingTimeInMillis: () => 10000,
  });
  if (answer.statusCode !== 200) throw new Error('answered ' + answer.statusCode);
}
`;

/** Runs {@link ENVIRONMENT} with `env`; resolves with everything it wrote once it exited 0. */
async function runEnvironment(env: Record<string, string>, events: unknown[]): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', TSX, '--input-type=module', '-e', ENVIRONMENT],
    {
      cwd: ROOT,
      env: { ...inheritedEnvironment(process.env), ...env, EVENTS: JSON.stringify(events) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let written = '';
  child.stdout.on('data', (chunk: Buffer) => {
    written += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    written += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the environment exited with ${code}:\n${written}`);
  return written;
}

describe('Metric filters on the receiver log group (per-call metrics)', () => {
  const sqs = useLocalSqs();
  let synthesized: Synthesized;
  let filters: TemplateMetricFilter[];
  let variables: Record<string, string>;

  beforeAll(() => {
    synthesized = synthesize(() => ({ serviceName: 'bookings' }));
    const { stack, receiver, resource } = synthesized;
    const logGroup = receiver.receiverFunction.logGroup.node.defaultChild as CfnElement;
    filters = templateMetricFilters(
      synthesized.template.toJSON() as CfnTemplate,
      stack.getLogicalId(logGroup),
    );
    // The function's environment as deployed, its literal values (the secret's ARN is not one).
    variables = Object.fromEntries(
      Object.entries(
        resource(receiver.receiverFunction).Properties.Environment.Variables as Record<
          string,
          unknown
        >,
      ).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  });

  it('counts three verified calls of an environment that then ends three times', async () => {
    // Prepare: a fresh environment of the receiver as deployed, against the embedded queue
    const queueUrl = await sqs().createQueue(`fresh-${Date.now()}`);
    const now = Math.floor(Date.now() / 1000);
    const events = [1, 2, 3].map((id) =>
      restApiEvent(
        signedCall(JSON.stringify(bookingPayload({ id })), { key: KEY, timestamp: now }),
      ),
    );

    // Act: three calls, then the process exits
    const written = await runEnvironment(
      {
        ...variables,
        WEBHOOK_SECRET: KEY,
        QUEUE_URL: queueUrl,
        AWS_ENDPOINT_URL_SQS: sqs().endpoint,
        AWS_REGION: LOCAL_AWS_SETTINGS.region,
        AWS_ACCESS_KEY_ID: LOCAL_AWS_SETTINGS.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_AWS_SETTINGS.credentials.secretAccessKey,
      },
      events,
    );

    // Assess: the filters the stack deploys count each call from the line it wrote
    const values = filteredDataPoints(filters, written.split('\n'));
    const service = { service: 'bookings' };
    expect(await sqs().messageCount(queueUrl)).toBe(3);
    expect(metricSum(values, 'WebhookReceived', service)).toBe(3);
    expect(metricSum(values, 'WebhookForwarded', service)).toBe(3);
    expect(metricSum(values, 'WebhookVerified', service)).toBe(3);
    expect(new Set(values.map(({ namespace }) => namespace))).toEqual(
      new Set(['ServiceWebhookReceiver']),
    );
  });
});
