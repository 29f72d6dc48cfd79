/**
 * What SQS takes (its API reference: SendMessage, SendMessageBatch; these cannot be changed), for
 * the queue the construct creates and the receiver's batches alike.
 *
 * @module
 */
export const SQS_LIMITS = {
  /** Largest message, body and attributes (1 MiB); also the most a batch's entries hold together. */
  messageBytes: 1024 * 1024,
  /** Most entries in one SendMessageBatch. */
  batchEntries: 10,
} as const;
