import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

/** What a test says about one SQS record; everything else gets realistic defaults. */
export interface SqsRecordInput {
  readonly body: string;
  readonly messageId?: string;
  /** String message attributes, as the receiver sets them. */
  readonly attributes?: Readonly<Record<string, string>>;
  /** @default a standard queue's ARN; end it in `.fifo` for a FIFO queue */
  readonly queueArn?: string;
  readonly messageGroupId?: string;
  /** FIFO queues: the `MessageDeduplicationId` the sender set. */
  readonly messageDeduplicationId?: string;
}

const DEFAULT_QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:webhook-events';

/**
 * One SQS record as Lambda's event source mapping delivers it.
 *
 * @param input - body and optional attributes
 */
export function sqsRecord(input: SqsRecordInput): SQSRecord {
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(input.attributes ?? {})) {
    messageAttributes[name] = { dataType: 'String', stringValue: value };
  }
  const now = String(Date.now());
  return {
    messageId: input.messageId ?? randomUUID(),
    receiptHandle: `AQEB${randomUUID()}`,
    body: input.body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: now,
      SenderId: 'AROAEXAMPLE:webhook-receiver',
      ApproximateFirstReceiveTimestamp: now,
      ...(input.messageGroupId === undefined ? {} : { MessageGroupId: input.messageGroupId }),
      ...(input.messageDeduplicationId === undefined
        ? {}
        : { MessageDeduplicationId: input.messageDeduplicationId }),
    },
    messageAttributes,
    md5OfBody: createHash('md5').update(input.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: input.queueArn ?? DEFAULT_QUEUE_ARN,
    awsRegion: 'eu-west-1',
  };
}

/**
 * An SQS event with the given records.
 *
 * @param records - record inputs (or ready records)
 */
export function sqsEvent(records: ReadonlyArray<SqsRecordInput | SQSRecord>): SQSEvent {
  return {
    Records: records.map((record) => ('eventSource' in record ? record : sqsRecord(record))),
  };
}
