import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/**
 * Example SQS consumer (work in progress: parsing and partial batch failures land next;
 * until then every record is reported as failed so nothing is silently dropped).
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => ({
  batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })),
});
