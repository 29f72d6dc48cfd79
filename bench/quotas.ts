/**
 * The AWS quotas the capacity model of `npm run bench -- capacity` applies, at their documented
 * defaults, each with the page that documents it.
 * @module
 */

/** One AWS quota the model applies, as AWS documents it. */
export interface Quota {
  /** The quota's name on its documentation page (and in Service Quotas where it is listed). */
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** Whether a quota increase raises it: `yes`, `no`, or `see source` where the page is unclear. */
  readonly raisable: 'yes' | 'no' | 'see source';
  /** Where the default is documented. */
  readonly source: string;
  /** Where the default does not hold. */
  readonly note?: string;
}

/** The quotas the model applies, at their documented defaults. */
export const QUOTAS = {
  apiGatewayAccountRate: {
    name: 'Throttle quota per account, per Region across HTTP APIs, REST APIs, WebSocket APIs, and WebSocket callback APIs',
    value: 10_000,
    unit: 'requests per second',
    raisable: 'yes',
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
    note: '2,500 in some newer Regions (Cape Town, Milan, Jakarta, ...); shared by every API of the account in the Region',
  },
  apiGatewayAccountBurst: {
    name: 'burst of the account throttle quota (token bucket capacity)',
    value: 5_000,
    unit: 'requests',
    raisable: 'no',
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
    note: 'set by API Gateway from the rate quota; 1,250 where the rate is 2,500',
  },
  lambdaConcurrency: {
    name: 'Concurrent executions',
    value: 1_000,
    unit: 'executions in flight, per account and Region',
    raisable: 'yes',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
    note: 'new accounts start with a reduced quota, which AWS raises with use; shared by every function of the account (the example consumer included)',
  },
  lambdaUnreservedMinimum: {
    name: 'unreserved concurrency Lambda keeps for functions without a reservation',
    value: 100,
    unit: 'executions',
    raisable: 'no',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html',
  },
  lambdaRequestsPerConcurrency: {
    name: 'requests per second per unit of concurrency (10 x the concurrency quota)',
    value: 10,
    unit: 'requests per second',
    raisable: 'no',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html',
    note: 'documented for the account; the model applies the same ratio to a reserved limit',
  },
  lambdaScalingRate: {
    name: 'concurrency scaling rate (1,000 execution environments every 10 seconds, per function)',
    value: 1_000,
    unit: 'new environments per 10 s, refilled continuously',
    raisable: 'no',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html',
  },
  sqsFifoSends: {
    name: 'FIFO queue throughput without high throughput mode',
    value: 300,
    unit: 'SendMessage calls per second per queue (3,000 messages in batches of 10)',
    raisable: 'no',
    source:
      'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html',
    note: 'a standard queue takes a nearly unlimited number of calls per second',
  },
  sqsFifoHighThroughputSends: {
    name: 'FIFO queue throughput in high throughput mode',
    value: 70_000,
    unit: 'SendMessage calls per second per queue, 300 per message group',
    raisable: 'see source',
    source:
      'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html',
    note: 'US East (N. Virginia), US West (Oregon), Europe (Ireland); lower in other Regions',
  },
  secretsManagerGetSecretValue: {
    name: 'GetSecretValue API request rate',
    value: 10_000,
    unit: 'requests per second',
    raisable: 'see source',
    source: 'https://docs.aws.amazon.com/secretsmanager/latest/userguide/reference_limits.html',
    note: 'DescribeSecret: 40,000 a second',
  },
  kmsSymmetricRequests: {
    name: 'Cryptographic operations (symmetric) request rate',
    value: 5_500,
    unit: 'requests per second, shared by the account in the Region',
    raisable: 'yes',
    source: 'https://docs.aws.amazon.com/kms/latest/developerguide/requests-per-second.html',
    note: 'the lowest regional default (higher in large Regions); Secrets Manager calls Decrypt for each GetSecretValue',
  },
} as const satisfies Record<string, Quota>;
