import { Duration } from 'aws-cdk-lib';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { createFunction } from './lambda-function.js';
import type { ReceiverSettings } from './receiver-settings.js';

/**
 * Memory of the receiver function, in MB. Memory buys CPU on Lambda: 512 MB keeps the cold start
 * (bundled SDK, first Secrets Manager call) short for the sender waiting on the response; a warm
 * call is an HMAC and one SendMessage, far below what this size costs to matter. The cost figures
 * of `npm run bench` use it.
 */
export const RECEIVER_MEMORY_MB = 512;

/**
 * The function that verifies each call and forwards it to the queue. It may read the secret and
 * send to the queue, nothing more: `sqs:SendMessage` only (plus the queue's KMS key when it has
 * one), not the GetQueueAttributes/GetQueueUrl that `grantSendMessages` adds, since the function
 * is given the queue's URL.
 */
export function createReceiverFunction(
  scope: Construct,
  settings: ReceiverSettings,
  secret: secretsmanager.ISecret,
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
    environment: {
      SECRET_ID: secret.secretArn,
      QUEUE_URL: queue.queueUrl,
      SIGNATURE_TOLERANCE_SECONDS: String(settings.signatureToleranceSeconds),
      PREVIOUS_KEY_GRACE_SECONDS: String(settings.previousKeyGraceSeconds),
      FORWARD_EVENTS: settings.forwardEvents.join(','),
      ...(settings.secretJsonField === undefined
        ? {}
        : { SECRET_JSON_FIELD: settings.secretJsonField }),
    },
  });
  secret.grantRead(fn);
  queue.grant(fn, 'sqs:SendMessage');
  // SQS needs both to put a message on a queue encrypted with a customer managed key.
  queue.encryptionMasterKey?.grant(fn, 'kms:GenerateDataKey', 'kms:Decrypt');
  return fn;
}
