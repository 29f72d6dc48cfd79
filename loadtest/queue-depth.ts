/**
 * How many messages a queue holds, read from its attributes: the load test's view of a queue it
 * shares with other senders and consumers, which it never receives from.
 * @module
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { sqsClientFor } from '../devkit/sqs-client.js';

/** A queue's approximate depth at one moment. */
export interface QueueDepth {
  /** `ApproximateNumberOfMessages`: waiting for a consumer. */
  readonly visible: number;
  /** `ApproximateNumberOfMessagesNotVisible`: received by a consumer and not yet deleted. */
  readonly inFlight: number;
}

/**
 * Reads a queue's depth with GetQueueAttributes, which neither receives nor hides a message, so
 * no other sender's message gains a receive or leaves its consumer's sight.
 *
 * @param queueUrl - the queue
 * @param env - the SQS client's environment (endpoint, credentials)
 * @throws the SDK's error when the queue cannot be reached
 */
export async function readQueueDepth(
  queueUrl: string,
  env: NodeJS.ProcessEnv,
): Promise<QueueDepth> {
  const client = sqsClientFor(queueUrl, env);
  try {
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return {
      visible: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
    };
  } finally {
    client.destroy();
  }
}
