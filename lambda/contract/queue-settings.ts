/**
 * The queue settings the deployed stack and the local run share, as plain numbers with no CDK
 * import, so `npm start` can use them without loading aws-cdk-lib. The construct turns them into
 * `Duration`s; the local queue passes them to the embedded SQS server as queue attributes.
 *
 * @module
 */

import { SQS_LIMITS } from './sqs-limits.js';

/** The example consumer's function timeout; the queue's visibility timeout is derived from it. */
export const CONSUMER_TIMEOUT_SECONDS = 30;

/** How many messages the example consumer takes per invocation. */
export const CONSUMER_BATCH_SIZE = 10;

/** How long Lambda gathers messages before invoking the example consumer. */
export const CONSUMER_BATCHING_WINDOW_SECONDS = 1;

/**
 * AWS guidance for Lambda on SQS: visibility timeout at least six times the function timeout plus
 * the batching window, so a message is not handed to a second invocation while Lambda still
 * retries the first after throttling.
 */
export function visibilityTimeoutSeconds(
  consumerTimeoutSeconds: number = CONSUMER_TIMEOUT_SECONDS,
  batchingWindowSeconds: number = CONSUMER_BATCHING_WINDOW_SECONDS,
): number {
  return 6 * consumerTimeoutSeconds + batchingWindowSeconds;
}

const DAY_SECONDS = 24 * 60 * 60;

/** Settings of the webhook queue and its dead-letter queue, with the construct's defaults. */
export const QUEUE_SETTINGS = {
  /** Seconds a received message stays invisible to other consumers. */
  visibilityTimeoutSeconds: visibilityTimeoutSeconds(),
  /**
   * 10 days: a booking survives ten days of consumer outage. Not SQS's longest (14 days), so that
   * the dead-letter queue can keep a message longer than this queue does.
   */
  retentionPeriodSeconds: 10 * DAY_SECONDS,
  /**
   * The longest SQS allows (14 days), 4 days more than the queue's. A standard queue's message
   * keeps its first enqueue time when it moves to the dead-letter queue, so retention there counts
   * from when the sender's call was queued, not from the move: with equal retentions a message that
   * failed late would expire in the dead-letter queue within hours. The 4 days are at least that
   * long for anyone to look at it.
   */
  deadLetterRetentionPeriodSeconds: 14 * DAY_SECONDS,
  /** Receives after which a message moves to the dead-letter queue, so a poison message stops cycling. */
  maxReceiveCount: 5,
  /**
   * SQS's largest message (1 MiB): the receiver accepts bodies up to MAX_BODY_BYTES and adds
   * attributes; at SQS's 256 KiB default such a call would be refused on every retry.
   */
  maxMessageSizeBytes: SQS_LIMITS.messageBytes,
} as const;
