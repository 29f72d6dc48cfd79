/**
 * AWS list prices used by `npm run bench -- cost`: US East (N. Virginia), on-demand, free tiers not
 * subtracted, as published on the pages below when read on `date`. Each price names its page;
 * update the date with the figures.
 */
export const PRICES = {
  date: '2026-11-24',
  region: 'us-east-1',
  /** HTTP API, first 300 million calls a month. */
  apiGatewayHttpPerMillionCalls: 1.0,
  /** REST API, first 333 million calls a month. */
  apiGatewayRestPerMillionCalls: 3.5,
  /** Function URLs have no charge of their own: a call through one is billed as a Lambda request. */
  functionUrlPerMillionCalls: 0,
  lambdaPerMillionRequests: 0.2,
  /** arm64, first 7.5 billion GB-seconds a month; billed per 1 ms. */
  lambdaArm64PerGbSecond: 0.0000133334,
  /** Per million requests; each 64 KB chunk of a payload is one request. */
  sqsStandardPerMillionRequests: 0.4,
  sqsFifoPerMillionRequests: 0.5,
  secretsManagerPer10kCalls: 0.05,
  secretsManagerPerSecretMonth: 0.4,
  /** Standard log class ingestion (Lambda's vended logs start at the same rate). */
  cloudWatchLogsPerGbIngested: 0.5,
  /** Standard-resolution alarm on one metric. */
  cloudWatchPerAlarmMonth: 0.1,
  /**
   * DynamoDB Standard table class, on-demand: per million write request units (one per write of
   * an item up to 1 KB), after the on-demand reduction its source names.
   */
  dynamoDbOnDemandPerMillionWrites: 0.625,
  /**
   * Firehose Direct PUT ingestion, first 500 TB a month; each record is rounded up to a multiple
   * of 5 KB before it is counted.
   */
  firehoseDirectPutPerGbIngested: 0.029,
  /** S3 Standard storage, first 50 TB a month. */
  s3StandardPerGbMonth: 0.023,
  /** S3 Standard PUT, COPY, POST and LIST requests. */
  s3PutPer1kRequests: 0.005,
} as const;

/** Where each price in {@link PRICES} comes from. */
export const PRICE_SOURCES: Readonly<
  Record<Exclude<keyof typeof PRICES, 'date' | 'region'>, string>
> = {
  apiGatewayHttpPerMillionCalls: 'https://aws.amazon.com/api-gateway/pricing/',
  apiGatewayRestPerMillionCalls: 'https://aws.amazon.com/api-gateway/pricing/',
  functionUrlPerMillionCalls:
    'https://aws.amazon.com/lambda/pricing/ (function URLs: no additional charge)',
  lambdaPerMillionRequests: 'https://aws.amazon.com/lambda/pricing/',
  lambdaArm64PerGbSecond: 'https://aws.amazon.com/lambda/pricing/',
  sqsStandardPerMillionRequests: 'https://aws.amazon.com/sqs/pricing/',
  sqsFifoPerMillionRequests: 'https://aws.amazon.com/sqs/pricing/',
  secretsManagerPer10kCalls: 'https://aws.amazon.com/secrets-manager/pricing/',
  secretsManagerPerSecretMonth: 'https://aws.amazon.com/secrets-manager/pricing/',
  cloudWatchLogsPerGbIngested: 'https://aws.amazon.com/cloudwatch/pricing/',
  cloudWatchPerAlarmMonth: 'https://aws.amazon.com/cloudwatch/pricing/',
  dynamoDbOnDemandPerMillionWrites:
    'https://aws.amazon.com/about-aws/whats-new/2024/11/amazon-dynamo-db-reduces-prices-on-demand-throughput-global-tables/ (on-demand throughput -50%, effective 2024-11-01), https://aws.amazon.com/dynamodb/pricing/on-demand/',
  firehoseDirectPutPerGbIngested: 'https://aws.amazon.com/firehose/pricing/',
  s3StandardPerGbMonth: 'https://aws.amazon.com/s3/pricing/',
  s3PutPer1kRequests: 'https://aws.amazon.com/s3/pricing/',
};
