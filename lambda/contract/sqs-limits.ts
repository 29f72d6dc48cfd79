/**
 * What SQS takes (its API reference: SendMessage; these cannot be changed), for the queue the
 * construct creates.
 *
 * @module
 */
export const SQS_LIMITS = {
  /** Largest message, body and attributes (1 MiB). */
  messageBytes: 1024 * 1024,
} as const;
