/**
 * The props of {@link WebhookReceiver} and the types they name, in a file of their own: the parts
 * the construct is built from read them without importing the construct, so `lib/` has no import
 * cycle.
 * @module
 */
import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { WebhookEndpoint } from './endpoints.js';
import type { WebhookReceiverFrontDoorProps } from './front-door-props.js';

export {
  INGRESS_KINDS,
  type IngressKind,
  type WebhookReceiverFrontDoorProps,
} from './front-door-props.js';

/**
 * What a user may set on a function beyond the construct's props (a VPC, layers, memory, a
 * timeout, ephemeral storage, environment variables of their own...). The code, its runtime and
 * handler, the role and the log group stay the construct's: the grants, the nag acknowledgements
 * and the tests hold only for those. Variables the construct writes win over ones given here.
 */
export type FunctionPropsOverrides = Omit<
  nodejs.NodejsFunctionProps,
  | 'code'
  | 'entry'
  | 'handler'
  | 'runtime'
  | 'bundling'
  | 'projectRoot'
  | 'depsLockFilePath'
  | 'role'
  | 'logGroup'
  | 'logRetention'
>;

/** Properties of {@link WebhookReceiver}. */
export interface WebhookReceiverProps extends WebhookReceiverFrontDoorProps {
  /**
   * Secret whose `SecretString` is the signing key issued by the booking service.
   * Import one with `Secret.fromSecretCompleteArn` (the console ARN, ending in `-` and six
   * characters), so the receiver's role can be scoped to that exact ARN. A secret encrypted with a
   * customer managed KMS key must be imported with
   * `fromSecretAttributes({ secretCompleteArn, encryptionKey })`: the receiver's role then gets
   * `kms:Decrypt` on that key through Secrets Manager in the stack's region (`kms:ViaService`).
   * Not with `endpoints`, where each endpoint has its own.
   * @default - a new secret holding a random 64-character placeholder, which matches no sender
   *   until the real key is put into it
   */
  readonly secret?: secretsmanager.ISecret;

  /**
   * When the secret's `SecretString` is a JSON object with several fields, the field holding the
   * key (the receiver's `SECRET_JSON_FIELD`). With `endpoints`, the field of every endpoint that
   * names none of its own.
   * @default - none: a JSON object's only string field is the key
   */
  readonly secretJsonField?: string;

  /**
   * Several endpoints, one key each: endpoint `<name>` is served at `POST /webhook/<name>` on the
   * same front door and function, verified only with its own key (an endpoint without `secret`
   * gets a placeholder secret of its own), and the receiver's role may read exactly these
   * secrets. The receiver finds them in {@link WebhookReceiver.endpointDirectory}. Not with `secret`.
   * @default - one endpoint, `POST /webhook`, with the key of `secret`
   */
  readonly endpoints?: readonly WebhookEndpoint[];

  /**
   * A queue of yours to forward verified events to. Then no queue or dead-letter queue is
   * created, and the receiver may only `sqs:SendMessage` to it (plus use its KMS key, if any).
   * Import a queue encrypted with a customer managed KMS key with its key,
   * `Queue.fromQueueAttributes({ queueArn, keyArn })`: without it the receiver and the consumer
   * get no use of the key (a synth warning says so).
   * @default - a new queue with a dead-letter queue
   */
  readonly existingQueue?: sqs.IQueue;

  /**
   * Queue properties merged over the construct's (SQS-managed encryption, or KMS when
   * `encryptionMasterKey` is given; TLS only, 10 days' retention, 1 MiB messages, dead-letter queue after 5 receives, a visibility timeout of six
   * consumer timeouts plus the batching window). Not with `existingQueue`. Refused where they
   * contradict a prop rather than win or lose silently: a `fifo` other than the `fifo` prop's (the
   * queue and its dead-letter queue must be of one type; a FIFO-only setting such as
   * `contentBasedDeduplication` needs `fifo: true`), `deadLetterQueue` (the construct's own is the
   * one its alarm watches: shape it with `deadLetterQueueProps`), and with `consumer`, a
   * `visibilityTimeout` under the example consumer's 30 s timeout (Lambda would refuse its event
   * source mapping at deploy).
   * @default - the construct's, listed above (a visibility timeout of 181 s with the default
   *   batching window)
   */
  readonly queueProps?: sqs.QueueProps;

  /**
   * Dead-letter queue properties merged over the construct's (those of the queue, with 14 days'
   * retention: a moved message keeps its first enqueue time, so the dead-letter queue must keep it
   * longer than the queue did). The dead-letter queue is encrypted as the queue is: a customer
   * managed key of `queueProps` (given, or the one CDK creates for `encryption: KMS`) encrypts
   * both, unless `encryption` or `encryptionMasterKey` here chooses otherwise (a key given
   * without `encryption` means KMS, as in `queueProps`). Not with
   * `existingQueue`; a `fifo` other than the `fifo` prop's is refused, as in `queueProps`, and
   * synth warns when this queue would keep messages no longer than the queue does.
   * @default - the construct's: those of the queue, its encryption included, with 14 days'
   *   retention
   */
  readonly deadLetterQueueProps?: sqs.QueueProps;

  /**
   * Use FIFO queues: messages of one booking (`data.id`) stay in order and a sender's retry within
   * SQS's 5-minute deduplication window is stored once. With `existingQueue`, the queue decides.
   * @default false
   */
  readonly fifo?: boolean;

  /**
   * How far the signature timestamp may be from the receiver's clock, in seconds, either way.
   * 1 to 3600: a wider window widens the replay window (`SETTINGS` holds the range).
   * @default 300
   */
  readonly signatureToleranceSeconds?: number;

  /**
   * How long after a rotation the `AWSPREVIOUS` key is still accepted, in seconds; 0 turns it off.
   * @default 86400
   */
  readonly previousKeyGraceSeconds?: number;

  /**
   * How long a warm receiver keeps the keys it loaded before asking Secrets Manager again, in
   * seconds (`SECRET_CACHE_SECONDS`). A rotation does not wait for it: a call that no cached key
   * verifies reloads the keys (at most every 30 s), and `AWSPREVIOUS` stays accepted for
   * `previousKeyGraceSeconds`. A long cache keeps Secrets Manager's requests, and their cost, low
   * (docs/performance.md prices it); it is also how long a key whose `AWSPREVIOUS` label was
   * removed may still be accepted.
   * @default 3600
   */
  readonly secretCacheSeconds?: number;

  /**
   * The largest body accepted, in bytes, 1 to 512000 (what always fits one SQS message with its
   * attributes); a larger one is answered 413 before its signature is checked (`MAX_BODY_BYTES`).
   * With the archive on, above about 438000 a body whose `event` and `source` hold most of its
   * text would make a record over Firehose's 1,000 KiB (with the attributes copied from it): that
   * call is queued whole, and its record keeps only the start of the body (`body_truncated`),
   * so the replay cannot send it again.
   * @default 262144
   */
  readonly maxBodyBytes?: number;

  /**
   * Event types forwarded to the queue; other verified events are acknowledged and dropped.
   * `['*']` forwards every verified event.
   * @default ['event_booked']
   */
  readonly forwardEvents?: readonly string[];

  /**
   * E-mail address subscribed to an SNS topic that every alarm notifies (the address must confirm
   * the subscription from the e-mail AWS sends).
   * @default - no topic
   */
  readonly alarmEmail?: string;

  /**
   * Actions every alarm takes, beside the e-mail topic of `alarmEmail`.
   * @default - none; the alarms are still created and visible in CloudWatch
   */
  readonly alarmActions?: readonly cloudwatch.IAlarmAction[];

  /**
   * Deploy the example consumer (`lambda/consumer/index.ts`) on the queue. Leave it off when your
   * own consumer reads {@link WebhookReceiver.queue}.
   * @default false
   */
  readonly consumer?: boolean;

  /**
   * Messages the example consumer takes per invocation (at most 10 on a FIFO queue).
   * @default 10
   */
  readonly consumerBatchSize?: number;

  /**
   * How long Lambda gathers messages before invoking the example consumer (standard queues only);
   * the queue's visibility timeout follows it.
   * @default Duration.seconds(1)
   */
  readonly consumerMaxBatchingWindow?: Duration;

  /**
   * Have the example consumer process each booking once (Powertools Idempotency on a DynamoDB
   * table keyed on the message's `dedup_key` and `endpoint`): copies of a processed booking are
   * acknowledged without calling `processBooking`. Creates the table
   * {@link WebhookReceiver.idempotencyTable}. Needs `consumer: true`.
   * @default false
   */
  readonly idempotency?: boolean;

  /**
   * How long a processed booking's record suppresses its copies. It must outlast the time within
   * which a copy can still arrive: the sender's retries (the spec sets no limit; a week is longer
   * than any retry schedule we expect) and the queue's redeliveries. A record costs only its
   * storage until DynamoDB's TTL removes it, so a long window is cheap; a copy arriving later is
   * processed again. Only with `idempotency: true`.
   * @default Duration.days(7)
   */
  readonly idempotencyTtl?: Duration;

  /**
   * What `cdk destroy` does with the idempotency table. Only with `idempotency: true`. The
   * queues' own policies are `queueProps.removalPolicy` and `deadLetterQueueProps.removalPolicy`.
   * @default RemovalPolicy.DESTROY: the records live as long as the messages they describe
   */
  readonly idempotencyTableRemovalPolicy?: RemovalPolicy;

  /**
   * Function props applied over the receiver function's (a VPC, layers, timeout, extra
   * environment variables...): the escape hatch for what the props above do not cover. The code,
   * runtime, handler, role and log group stay the construct's, and the variables the construct
   * writes win over ones given here. A setting the props above also make is refused when both
   * are given, rather than one silently winning: its `memorySize`, system log level
   * (`systemLogLevelV2`, `systemLogLevel`, `loggingFormat`), `reservedConcurrentExecutions` and
   * `tracing` next to `receiverMemorySize`, `systemLogLevel`, `reservedConcurrency` and `tracing`.
   * @default - none
   */
  readonly receiverFunctionProps?: FunctionPropsOverrides;

  /**
   * X-Ray active tracing of the functions and the REST API stage (HTTP APIs and function URLs
   * have no tracing of their own). Off by default: X-Ray costs more per call than the rest of
   * the stack. Not with `receiverFunctionProps.tracing`.
   * @default false
   */
  readonly tracing?: boolean;

  /**
   * Memory of the receiver function, in MB (128 to 10,240). The default is the smallest multiple
   * of 64 MB with half again the receiver's measured peak memory, and the cheapest such size: a
   * warm call mostly waits for SendMessage, which more memory does not shorten. More memory
   * shortens the cold start. docs/performance.md gives the measurements and prices.
   * @default 192
   */
  readonly receiverMemorySize?: number;

  /**
   * Which of Lambda's own log lines both functions keep (their logs are then in Lambda's JSON
   * format; the functions' own lines are JSON already and stay as written). WARN drops START, END
   * and REPORT, a few hundred bytes of CloudWatch Logs per invocation (bench/results.md prices
   * them); durations, errors and throttles stay available as metrics. With
   * the JSON format, Lambda's application log level (INFO unless set on the function) takes
   * precedence over `POWERTOOLS_LOG_LEVEL` in Powertools Logger.
   * @default lambda.SystemLogLevel.WARN
   */
  readonly systemLogLevel?: lambda.SystemLogLevel;

  /**
   * Powertools service name of the receiver: the `service` dimension of its metrics, which the
   * signature-rejection and key-load alarms watch.
   * @default - 'webhook-receiver-' and a hash of the construct's path, unique per instance
   */
  readonly serviceName?: string;

  /**
   * Retention of the Lambda log groups and of the API's access log group. A REST API's execution
   * log group (`API-Gateway-Execution-Logs_<api id>/prod`, errors only) is created by API Gateway
   * itself, not by the stack, and keeps what it holds until you set its retention: a stack
   * creating it would fail to update wherever API Gateway had made it already.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * Signature rejections (HTTP 401) within 5 minutes that raise the alarm: a few are noise from
   * scanners, a spike means a forged flood or a key the sender no longer uses.
   * @default 10
   */
  readonly signatureRejectionAlarmThreshold?: number;

  /**
   * Age of the oldest queued message that raises the alarm: the consumer is down or too slow.
   * At least one minute.
   * @default Duration.minutes(15)
   */
  readonly messageAgeAlarmThreshold?: Duration;

  /**
   * Minutes without a verified delivery (queued or ignored) after which an alarm fires: the sender
   * stopped, or something between it and the receiver did, which otherwise looks like a quiet
   * day. One alarm per endpoint with `endpoints` (docs/operations.md prices them). Missing data counts as
   * breaching, so the alarm also fires before the first delivery. 0 turns it off; at most 1440.
   * @default 60
   */
  readonly silenceAlarmMinutes?: number;

  /**
   * Create a CloudWatch dashboard of the receiver: deliveries by outcome, reason and endpoint,
   * latency, queue and dead-letter depth, consumer errors and duplicates, key loads, the archive
   * (with `archive`) and API throttling ({@link WebhookReceiver.dashboard}; CloudWatch bills
   * dashboards beyond an account's free ones).
   * @default true
   */
  readonly dashboard?: boolean;

  /**
   * With `rest-api`: set the account-wide role API Gateway needs to write execution logs (once per
   * stack, whatever the number of receivers). The role and the setting are kept when the stack is
   * deleted, since every REST API of the account and region logs through them. Turn it off when
   * the account and region already have one, to keep a single owner (context key
   * `apiGatewayCloudWatchRole`).
   * @default true
   */
  readonly apiGatewayCloudWatchRole?: boolean;

  /**
   * Archive every call the receiver answers (ReceiverStack turns it on): verified deliveries with
   * their exact body, the headers that matter, endpoint, verdict, receipt time and dedup key;
   * rejected calls with at most the first 4 KiB of their body, at most 10 a minute per warm
   * execution environment. Records go through a Firehose delivery stream into an encrypted,
   * SSL-only, private bucket ({@link WebhookReceiver.archiveBucket}); `npm run replay` re-queues
   * a time window of them. Holds personal data. The write waits at most 500 ms and never changes
   * the answer; a failed one is counted (`ArchiveWriteFailure`) and raises an alarm, as does a
   * stream that holds records without writing them to the bucket (`ArchiveDeliveryDelayed`).
   * @default false
   */
  readonly archive?: boolean;

  /**
   * Days an archived call is kept before S3 deletes it, from 1 to 3653 (ten years). Only with
   * `archive: true`.
   * @default 30
   */
  readonly archiveDays?: number;

  /**
   * A customer managed KMS key for the archive bucket (SSE-KMS with an S3 Bucket Key, which cuts
   * S3's requests to KMS and their cost). Firehose's delivery role may then use it
   * (`kms:GenerateDataKey`, `kms:Decrypt`) only through S3 in the stack's region. It must be a key
   * in the stack's region, not an alias (either is refused at synth: Firehose could not write);
   * an imported key's policy must let the stack's account use it, as KMS's default key policy
   * does in its own account. Whoever runs `npm run replay` needs `kms:Decrypt` on it. Only with
   * `archive: true`. The delivery stream's own buffer stays encrypted with an AWS owned key.
   * @default - S3-managed keys (SSE-S3)
   */
  readonly archiveEncryptionKey?: kms.IKey;
}
