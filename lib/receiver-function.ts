import { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ALLOWED_SOURCE_IPS } from '../lambda/contract/environment.js';
import { RECEIVER_SETTINGS, RECEIVER_TIMEOUT_SECONDS } from '../lambda/contract/settings.js';
import type { EndpointDirectorySecret } from './endpoint-directory.js';
import type { ServedWebhookEndpoint } from './endpoints.js';
import { keyUseThroughService } from './key-use.js';
import { createFunction } from './lambda-function.js';
import { INGRESS_WITH_SOURCE_POLICY, type ReceiverSettings } from './receiver-settings.js';
import { grantReadEndpointSigningKeys, grantReadSigningKey } from './signing-key.js';

/** Where the receiver's keys are: one secret, or one per named endpoint. */
export type ReceiverKeys =
  | { readonly secret: secretsmanager.ISecret }
  | {
      readonly endpoints: ReadonlyArray<Omit<ServedWebhookEndpoint, 'url'>>;
      /** The endpoint directory listing them, which the receiver reads in place of its environment. */
      readonly directory: EndpointDirectorySecret;
    };

/**
 * The function that verifies each call and forwards it to the queue. It may read its secrets and
 * send to the queue, nothing more: `sqs:SendMessage` only (plus the queue's KMS key when it has
 * one, through SQS only), not the GetQueueAttributes/GetQueueUrl that `grantSendMessages` adds,
 * since the function is given the queue's URL.
 */
export function createReceiverFunction(
  scope: Construct,
  settings: ReceiverSettings,
  keys: ReceiverKeys,
  queue: sqs.IQueue,
): nodejs.NodejsFunction {
  const directory = 'secret' in keys ? undefined : keys.directory;
  const fn = createFunction(scope, 'Receiver', settings, {
    entry: 'lambda/receiver/index.ts',
    memorySize: settings.receiverMemorySize,
    timeout: Duration.seconds(RECEIVER_TIMEOUT_SECONDS),
    description: 'Verifies signed booking-service webhooks and forwards them to SQS',
    reservedConcurrentExecutions: settings.reservedConcurrency,
    overrides: settings.receiverFunctionProps,
    environment: {
      ...directory?.environment,
      ...('secret' in keys ? { SECRET_ID: keys.secret.secretArn } : {}),
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
  if ('secret' in keys) {
    grantReadSigningKey(keys.secret, fn);
  } else {
    const secrets = keys.endpoints.map(({ secret }) => secret);
    for (const policy of grantReadEndpointSigningKeys(scope, fn.role as iam.IRole, secrets)) {
      // Not invoked before it may read its keys.
      fn.node.addDependency(policy);
    }
  }
  directory?.secret.grantRead(fn);
  queue.grant(fn, 'sqs:SendMessage');
  const queueKey = queue.encryptionMasterKey;
  if (queueKey !== undefined) {
    // SQS needs both to put a message on a queue encrypted with a customer managed key.
    fn.addToRolePolicy(
      keyUseThroughService(scope, {
        service: 'sqs',
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        keyArns: [queueKey.keyArn],
      }),
    );
  }
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
