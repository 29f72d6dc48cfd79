import { DeleteMessageCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClientFor } from '../../devkit/sqs-client.js';

/** Receives and deletes every message of a queue (with its message attributes) until it answers empty. */
export async function receiveAndDeleteAll(queueUrl: string): Promise<Message[]> {
  const sqs = sqsClientFor(queueUrl);
  const messages: Message[] = [];
  try {
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
        }),
      );
      if (Messages.length === 0) return messages;
      for (const message of Messages) {
        messages.push(message);
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
        );
      }
    }
  } finally {
    sqs.destroy();
  }
}
