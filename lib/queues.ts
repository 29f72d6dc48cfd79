import { Annotations, Duration, Resource } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QUEUE_SETTINGS, visibilityTimeoutSeconds } from '../lambda/contract/queue-settings.js';
import { acknowledgeNagFindings } from './nag.js';
import type { ReceiverSettings } from './receiver-settings.js';

/** The queue verified events go to and, when the construct created it, its dead-letter queue. */
export interface ReceiverQueues {
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.Queue | undefined;
}

/**
 * The given `existingQueue`, or a new queue with a dead-letter queue: SQS-managed encryption, TLS
 * only, 10 days' retention (14 in the dead-letter queue), 1 MiB messages, FIFO when asked; `queueProps` and
 * `deadLetterQueueProps` are merged over these defaults, and the dead-letter queue is encrypted as
 * the queue is unless `deadLetterQueueProps` says otherwise ({@link deadLetterEncryption}).
 */
export function createQueues(scope: Construct, settings: ReceiverSettings): ReceiverQueues {
  if (settings.existingQueue !== undefined) {
    warnOfQueueWithoutKey(scope, settings.existingQueue);
    return { queue: settings.existingQueue, deadLetterQueue: undefined };
  }
  const defaults: sqs.QueueProps = {
    // SQS-managed SSE: encrypted at rest at no cost, and no KMS key policy to keep in step with
    // every producer and consumer (a customer managed key adds cost and a failure mode). A key
    // given in queueProps says KMS by itself: with SQS-managed left as the default, CDK would
    // refuse it ("encryptionMasterKey is not supported if encryption type SQS_MANAGED is used").
    encryption:
      settings.queueProps.encryptionMasterKey === undefined
        ? sqs.QueueEncryption.SQS_MANAGED
        : sqs.QueueEncryption.KMS,
    enforceSSL: true,
    retentionPeriod: Duration.seconds(QUEUE_SETTINGS.retentionPeriodSeconds),
    maxMessageSizeBytes: QUEUE_SETTINGS.maxMessageSizeBytes,
    // Stated either way: left out, CDK would make a queue FIFO for a FIFO-only setting in
    // queueProps or deadLetterQueueProps (contentBasedDeduplication, a name ending in .fifo) and
    // leave the other standard; stated, it refuses that setting on a standard queue.
    fifo: settings.fifo,
  };
  const batchingWindowSeconds = settings.fifo ? 0 : settings.consumerMaxBatchingWindow.toSeconds();
  // The queue first, so that the key CDK creates for `encryption: KMS` without a key (at
  // Queue/Key, where it has always been: an upgrade keeps it) exists for the dead-letter queue to
  // share. `deadLetterQueue` is a constructor prop, so the redrive policy goes on afterwards.
  const queue = new sqs.Queue(scope, 'Queue', {
    ...defaults,
    visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(undefined, batchingWindowSeconds)),
    ...settings.queueProps,
  });
  const deadLetterQueue = new sqs.Queue(scope, 'DeadLetterQueue', {
    ...defaults,
    ...deadLetterEncryption(queue, settings),
    // Longer than the queue's: a moved message keeps its first enqueue time (QUEUE_SETTINGS).
    retentionPeriod: Duration.seconds(QUEUE_SETTINGS.deadLetterRetentionPeriodSeconds),
    ...settings.deadLetterQueueProps,
  });
  warnOfShortDeadLetterRetention(scope, settings);
  (queue.node.defaultChild as sqs.CfnQueue).redrivePolicy = {
    deadLetterTargetArn: deadLetterQueue.queueArn,
    maxReceiveCount: QUEUE_SETTINGS.maxReceiveCount,
  };
  acknowledgeNagFindings(deadLetterQueue, {
    pack: 'Serverless',
    rule: 'Serverless-SQSRedrivePolicy',
    reason:
      'Serverless-SQSRedrivePolicy (redrive policy): this queue is the dead-letter queue of the webhook queue, the end of the redrive chain, and its own alarm reports any message in it.',
  });
  return { queue, deadLetterQueue };
}

/**
 * The queue's encryption, key included, for its dead-letter queue: a dead letter is a booking
 * too (personal data), so a customer managed key chosen in `queueProps` must not give way to
 * SQS-managed keys when a message fails. One key, where CDK made one for the queue, so that whoever
 * may read the queue's messages may read the dead letters with the same grant. When
 * `deadLetterQueueProps` chooses an encryption of its own it decides alone; a key it gives
 * without one says KMS by itself, as in `queueProps`.
 */
function deadLetterEncryption(
  queue: sqs.Queue,
  settings: ReceiverSettings,
): Pick<sqs.QueueProps, 'encryption' | 'encryptionMasterKey' | 'dataKeyReuse'> {
  const { encryption, encryptionMasterKey } = settings.deadLetterQueueProps;
  if (encryption !== undefined) return {};
  if (encryptionMasterKey !== undefined) return { encryption: sqs.QueueEncryption.KMS };
  const { encryptionType, encryptionMasterKey: queueKey } = queue;
  const { dataKeyReuse } = settings.queueProps;
  return {
    ...(encryptionType === undefined ? {} : { encryption: encryptionType }),
    ...(queueKey === undefined ? {} : { encryptionMasterKey: queueKey }),
    ...(dataKeyReuse === undefined ? {} : { dataKeyReuse }),
  };
}

/** The id of the synth warning about a dead-letter queue that keeps messages no longer than the queue. */
export const SHORT_DEAD_LETTER_RETENTION_WARNING =
  'service-webhook-receiver:deadLetterRetentionNotLonger';

/**
 * Warns at synth when the dead-letter queue keeps messages no longer than the queue does: a
 * standard queue's message keeps its first enqueue time when it moves, so such a dead letter can
 * expire soon after it lands, before anyone redrives it. A warning, not a refusal: SQS keeps a
 * message 14 days at most, so a queue kept 14 days cannot have a longer dead-letter queue.
 */
function warnOfShortDeadLetterRetention(scope: Construct, settings: ReceiverSettings): void {
  const seconds = (given: Duration | undefined, fallback: number): number | undefined =>
    given === undefined ? fallback : given.isUnresolved() ? undefined : given.toSeconds();
  const queue = seconds(settings.queueProps.retentionPeriod, QUEUE_SETTINGS.retentionPeriodSeconds);
  const deadLetters = seconds(
    settings.deadLetterQueueProps.retentionPeriod,
    QUEUE_SETTINGS.deadLetterRetentionPeriodSeconds,
  );
  if (queue === undefined || deadLetters === undefined || deadLetters > queue) return;
  Annotations.of(scope).addWarningV2(
    SHORT_DEAD_LETTER_RETENTION_WARNING,
    `The dead-letter queue keeps messages ${deadLetters} s, no longer than the queue (${queue} s): a message keeps its first enqueue time when it moves, so a dead letter may expire soon after it lands, before a redrive. Keep the queue's retentionPeriod (queueProps) shorter than the dead-letter queue's (deadLetterQueueProps), 14 days at most.`,
  );
}

/** The id of the synth warning about an imported `existingQueue` without its KMS key. */
export const QUEUE_WITHOUT_KEY_WARNING = 'service-webhook-receiver:existingQueueWithoutKey';

/**
 * Warns at synth when `existingQueue` was imported without a KMS key (`Queue.fromQueueArn`, or
 * `fromQueueAttributes` without `keyArn`): the construct cannot tell whether a customer managed
 * key encrypts it, and if one does, no grant names it. A queue this app creates says itself.
 */
function warnOfQueueWithoutKey(scope: Construct, queue: sqs.IQueue): void {
  if (Resource.isOwnedResource(queue) || queue.encryptionMasterKey !== undefined) return;
  Annotations.of(scope).addWarningV2(
    QUEUE_WITHOUT_KEY_WARNING,
    'existingQueue was imported without its KMS key. If a customer managed KMS key encrypts the queue, import it with Queue.fromQueueAttributes({ queueArn, keyArn }): else the receiver gets no kms:GenerateDataKey or kms:Decrypt and answers every call 503, and the example consumer gets no kms:Decrypt, so its event source mapping reads no message. A queue with SQS-managed encryption or none needs no key.',
  );
}
