import { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { VARIABLES } from '../lambda/contract/environment.js';
import {
  RECEIVER_FUNCTION_SETTINGS,
  RECEIVER_TIMEOUT_SECONDS,
  SETTINGS,
} from '../lambda/contract/settings.js';
import type { EndpointDirectorySecret } from './endpoint-directory.js';
import type { ServedWebhookEndpoint } from './endpoints.js';
import { keyUseThroughService } from './key-use.js';
import { createFunction } from './lambda-function.js';
import { countDecisionLines } from './receiver-metrics.js';
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
      ...('secret' in keys ? { [VARIABLES.secretId]: keys.secret.secretArn } : {}),
      [VARIABLES.queueUrl]: queue.queueUrl,
      ...receiverSettingsEnvironment(settings),
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
  countDecisionLines(fn.logGroup);
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
 * The settings the receiver reads from its environment ({@link RECEIVER_FUNCTION_SETTINGS}), each
 * as its variable holds it (a list comma-joined), unset ones left out. `ALLOWED_SOURCE_IPS` only
 * behind the front doors that cannot refuse other sources themselves; a REST API's resource
 * policy refuses them before the receiver is invoked.
 */
function receiverSettingsEnvironment(settings: ReceiverSettings): Record<string, string> {
  const enforcedByFrontDoor = INGRESS_WITH_SOURCE_POLICY.includes(settings.ingress);
  return Object.fromEntries(
    RECEIVER_FUNCTION_SETTINGS.flatMap((prop) => {
      const value = settings[prop];
      if (value === undefined || (prop === 'allowedSourceIps' && enforcedByFrontDoor)) return [];
      const text = Array.isArray(value) ? value.join(',') : String(value);
      return [[SETTINGS[prop].variable, text]];
    }),
  );
}
