import { Duration, Stack } from 'aws-cdk-lib';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { RECEIVER_SETTINGS } from '../lambda/contract/settings.js';
import { ALLOWED_SOURCE_IPS } from '../lambda/receiver/config.js';
import type { ServedWebhookEndpoint } from './endpoints.js';
import { createFunction } from './lambda-function.js';
import { INGRESS_WITH_SOURCE_POLICY, type ReceiverSettings } from './receiver-settings.js';

/**
 * Memory of the receiver function, in MB. Memory buys CPU on Lambda: 512 MB keeps the cold start
 * (bundled SDK, first Secrets Manager call) short for the sender waiting on the response; a warm
 * call is an HMAC and one SendMessage, far below what this size costs to matter. The cost figures
 * of `npm run bench` use it.
 */
export const RECEIVER_MEMORY_MB = 512;

/** Where the receiver's keys are: one secret, or one per named endpoint. */
export type ReceiverKeys =
  | { readonly secret: secretsmanager.ISecret }
  | { readonly endpoints: ReadonlyArray<Omit<ServedWebhookEndpoint, 'url'>> };

/**
 * The function that verifies each call and forwards it to the queue. It may read its secrets and
 * send to the queue, nothing more: `sqs:SendMessage` only (plus the queue's KMS key when it has
 * one), not the GetQueueAttributes/GetQueueUrl that `grantSendMessages` adds, since the function
 * is given the queue's URL.
 */
export function createReceiverFunction(
  scope: Construct,
  settings: ReceiverSettings,
  keys: ReceiverKeys,
  queue: sqs.IQueue,
): nodejs.NodejsFunction {
  const fn = createFunction(scope, 'Receiver', settings, {
    entry: 'lambda/receiver/index.ts',
    memorySize: RECEIVER_MEMORY_MB,
    // A warm call takes milliseconds. The receiver gives a key load and a send 5 s each before it
    // answers 503 with Retry-After; 15 s lets those deadlines end first (a Lambda timeout would
    // reach the sender as an unexplained 502) and still ends before API Gateway's 29 s limit.
    timeout: Duration.seconds(15),
    description: 'Verifies signed booking-service webhooks and forwards them to SQS',
    reservedConcurrentExecutions: settings.reservedConcurrency,
    overrides: settings.receiverFunctionProps,
    environment: {
      ...keysEnvironment(scope, keys),
      QUEUE_URL: queue.queueUrl,
      ...Object.fromEntries(
        Object.values(RECEIVER_SETTINGS).map(({ prop, variable }) => [
          variable,
          String(settings[prop]),
        ]),
      ),
      FORWARD_EVENTS: settings.forwardEvents.join(','),
      ...(settings.secretJsonField === undefined
        ? {}
        : { SECRET_JSON_FIELD: settings.secretJsonField }),
      ...sourceAllowlistEnvironment(settings),
    },
  });
  const secrets = 'secret' in keys ? [keys.secret] : keys.endpoints.map(({ secret }) => secret);
  for (const secret of secrets) {
    secret.grantRead(fn);
  }
  queue.grant(fn, 'sqs:SendMessage');
  // SQS needs both to put a message on a queue encrypted with a customer managed key.
  queue.encryptionMasterKey?.grant(fn, 'kms:GenerateDataKey', 'kms:Decrypt');
  return fn;
}

/**
 * `ALLOWED_SOURCE_IPS` behind the front doors that cannot refuse other sources themselves; a
 * REST API's resource policy refuses them before the receiver is invoked.
 */
function sourceAllowlistEnvironment(settings: ReceiverSettings): Record<string, string> {
  const { allowedSourceIps, ingress } = settings;
  return allowedSourceIps === undefined || INGRESS_WITH_SOURCE_POLICY.includes(ingress)
    ? {}
    : { [ALLOWED_SOURCE_IPS]: allowedSourceIps.join(',') };
}

/**
 * `SECRET_ID`, or `ENDPOINT_SECRET_IDS` (a JSON object from endpoint name to secret ARN) with
 * `ENDPOINT_SECRET_JSON_FIELDS` (endpoint name to JSON field) for the endpoints that name a field.
 * `SECRET_JSON_FIELD` stays the field of every endpoint that names none.
 */
function keysEnvironment(scope: Construct, keys: ReceiverKeys): Record<string, string> {
  if ('secret' in keys) {
    return { SECRET_ID: keys.secret.secretArn };
  }
  const stack = Stack.of(scope);
  const jsonFields = keys.endpoints.flatMap(({ name, secretJsonField }) =>
    secretJsonField === undefined ? [] : [[name, secretJsonField] as const],
  );
  return {
    ENDPOINT_SECRET_IDS: stack.toJsonString(
      Object.fromEntries(keys.endpoints.map(({ name, secret }) => [name, secret.secretArn])),
    ),
    ...(jsonFields.length === 0
      ? {}
      : { ENDPOINT_SECRET_JSON_FIELDS: JSON.stringify(Object.fromEntries(jsonFields)) }),
  };
}
