import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { VARIABLES } from '../lambda/contract/environment.js';
import { CONSUMER_TIMEOUT_SECONDS } from '../lambda/contract/queue-settings.js';
import type { IdempotencyTable } from './idempotency-table.js';
import { keyUseOnlyThroughService } from './key-use.js';
import { createFunction } from './lambda-function.js';
import { acknowledgeNagFindings } from './nag.js';
import type { ReceiverSettings } from './receiver-settings.js';

/**
 * The example consumer's service name: the `service` dimension of its metrics.
 *
 * @param serviceName - the receiver's service name
 */
export function consumerServiceName(serviceName: string): string {
  return `${serviceName}-consumer`;
}

/**
 * The example consumer (`lambda/consumer/index.ts`), reading the queue with partial batch
 * failures; with an idempotency table, it is told the table and may read and write its items.
 */
export function createConsumerFunction(
  scope: Construct,
  settings: ReceiverSettings,
  queue: sqs.IQueue,
  idempotency: IdempotencyTable | undefined,
): nodejs.NodejsFunction {
  const consumer = createFunction(scope, 'Consumer', settings, {
    entry: 'lambda/consumer/index.ts',
    // Parsing and validating a batch of small JSON messages needs little memory.
    memorySize: 256,
    timeout: Duration.seconds(CONSUMER_TIMEOUT_SECONDS),
    description: 'Example consumer of verified booking-service webhooks',
    // Its own service name, so its logs and metrics are not mistaken for the receiver's.
    environment: {
      [VARIABLES.serviceName]: consumerServiceName(settings.serviceName),
      ...idempotency?.consumerEnvironment,
    },
  });
  idempotency?.grantConsumer(consumer);
  consumer.addEventSource(
    new SqsEventSource(queue, {
      // Small batches by default: a poison message costs one retry of its own record (partial
      // batch responses), and 10 is the most a FIFO queue delivers per batch anyway.
      batchSize: settings.consumerBatchSize,
      // FIFO event sources do not support a batching window.
      ...(settings.fifo ? {} : { maxBatchingWindow: settings.consumerMaxBatchingWindow }),
      reportBatchItemFailures: true,
    }),
  );
  // The event source grants kms:Decrypt on the queue's key with no condition: SQS's reads only.
  const queueKey = queue.encryptionMasterKey;
  if (queueKey !== undefined) {
    consumer.addToRolePolicy(
      keyUseOnlyThroughService(scope, {
        service: 'sqs',
        actions: ['kms:Decrypt'],
        keyArns: [queueKey.keyArn],
      }),
    );
  }
  // On the function: the event source mapping it owns is the resource the rule reports.
  acknowledgeNagFindings(consumer, {
    pack: 'Serverless',
    rule: 'Serverless-LambdaEventSourceMappingDestination',
    reason:
      "Serverless-LambdaEventSourceMappingDestination (on-failure destination): a message the consumer keeps failing on moves to the queue's dead-letter queue after its receive limit, where it keeps its body and attributes and an alarm reports it.",
  });
  return consumer;
}
