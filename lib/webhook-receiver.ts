import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Aws, Duration, Names, Token } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONFIG_DEFAULTS, checkForwardEvents } from '../lambda/receiver/config.js';
import { METRIC_NAMES } from '../lambda/receiver/metric-names.js';
import {
  CONSUMER_BATCH_SIZE,
  CONSUMER_BATCHING_WINDOW_SECONDS,
  CONSUMER_TIMEOUT_SECONDS,
  QUEUE_SETTINGS,
} from './queue-settings.js';

/** Runtime of both functions; esbuild's target (`node24`) follows from it. */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_24_X;

/**
 * esbuild options of both functions. Exported so `npm run bench` builds the receiver exactly as
 * deployed when it measures the bundle's size and cold start.
 */
export const LAMBDA_BUNDLING: nodejs.BundlingOptions = {
  format: nodejs.OutputFormat.ESM,
  // Prefer the packages' ES module builds; fall back to CommonJS where there is none.
  mainFields: ['module', 'main'],
  // ES modules have no require(). Today's bundles make no require() call, but a CommonJS
  // dependency added later would call it for Node built-ins and fail only at run time
  // ("Dynamic require ... is not supported"); this defines it up front.
  banner:
    "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  minify: true,
  sourceMap: true,
  // Stack traces need the mappings, not the sources: keeps the asset small.
  sourcesContent: false,
  bundleAwsSDK: true,
};

/**
 * Memory of the receiver function, in MB. Memory buys CPU on Lambda: 512 MB keeps the cold start
 * (bundled SDK, first Secrets Manager call) short for the sender waiting on the response; a warm
 * call is an HMAC and one SendMessage, far below what this size costs to matter. The cost figures
 * of `npm run bench` use it.
 */
export const RECEIVER_MEMORY_MB = 512;

/** Repository root: the Lambda entry files and the lock file esbuild resolves against live here. */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Thrown when {@link WebhookReceiverProps} hold a value the receiver cannot work with. */
export class InvalidWebhookReceiverPropsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidWebhookReceiverPropsError';
  }
}

/** Properties of {@link WebhookReceiver}. */
export interface WebhookReceiverProps {
  /**
   * Secret whose `SecretString` is the signing key issued by the booking service.
   * Import one with `Secret.fromSecretCompleteArn` (the console ARN, ending in `-` and six
   * characters), so the receiver's role can be scoped to that exact ARN. A secret encrypted with a
   * customer managed KMS key must be imported with `fromSecretAttributes({ encryptionKey })`, so
   * that `grantRead` also grants `kms:Decrypt`.
   * @default - a new secret holding a random 64-character placeholder, which matches no sender
   *   until the real key is put into it
   */
  readonly secret?: secretsmanager.ISecret;

  /**
   * Use FIFO queues: messages of one booking (`data.id`) stay in order and a sender's retry within
   * SQS's 5-minute deduplication window is stored once.
   * @default false
   */
  readonly fifo?: boolean;

  /**
   * How far the signature timestamp may be from the receiver's clock, in seconds, either way.
   * At most 3600: a wider window widens the replay window.
   * @default 300
   */
  readonly signatureToleranceSeconds?: number;

  /**
   * How long after a rotation the `AWSPREVIOUS` key is still accepted, in seconds; 0 turns it off.
   * @default 86400
   */
  readonly previousKeyGraceSeconds?: number;

  /**
   * Event types forwarded to the queue; other verified events are acknowledged and dropped.
   * `['*']` forwards every verified event.
   * @default ['event_booked']
   */
  readonly forwardEvents?: readonly string[];

  /**
   * Steady-state request rate the API stage accepts, in requests per second.
   * @default 100
   */
  readonly throttleRateLimit?: number;

  /**
   * Burst of requests the API stage accepts above the steady rate.
   * @default 200
   */
  readonly throttleBurstLimit?: number;

  /**
   * E-mail address subscribed to an SNS topic that every alarm notifies (the address must confirm
   * the subscription from the e-mail AWS sends).
   * @default - no topic; the alarms are still created and visible in CloudWatch
   */
  readonly alarmEmail?: string;

  /**
   * Deploy the example consumer (`lambda/consumer/index.ts`) on the queue.
   * Turn it off when your own consumer reads {@link WebhookReceiver.queue}.
   * @default true
   */
  readonly consumer?: boolean;

  /**
   * Powertools service name of the receiver: the `service` dimension of its metrics, which the
   * signature-rejection alarm watches. Give each receiver in one account and region its own name.
   * @default 'webhook-receiver'
   */
  readonly serviceName?: string;

  /**
   * Retention of the Lambda and API access log groups.
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
   * Create the account-wide role API Gateway needs to write execution logs. Turn it off when the
   * account and region already have one (for example a second receiver), to keep a single owner.
   * @default true
   */
  readonly apiGatewayCloudWatchRole?: boolean;
}

/** The alarms a {@link WebhookReceiver} creates, each notifying the alarm topic when there is one. */
export interface WebhookReceiverAlarms {
  /** The dead-letter queue holds at least one message: a booking the consumer could not process. */
  readonly deadLetterQueueNotEmpty: cloudwatch.Alarm;
  /** The oldest message in the queue is older than the threshold: the consumer is down or slow. */
  readonly oldestMessageAge: cloudwatch.Alarm;
  /** The receiver function failed with an uncaught error (a bug; outages are answered 503). */
  readonly receiverErrors: cloudwatch.Alarm;
  /** The receiver function was throttled by Lambda concurrency limits. */
  readonly receiverThrottles: cloudwatch.Alarm;
  /** The API answered 5xx: a delivery the sender must retry (SQS or Secrets Manager unavailable). */
  readonly apiServerErrors: cloudwatch.Alarm;
  /** A spike of signature rejections (the receiver's `SignatureRejected` metric). */
  readonly signatureRejections: cloudwatch.Alarm;
}

/**
 * Production receiver for the booking service's signed webhooks: a regional REST API
 * (`POST /webhook`) invokes a Lambda that verifies the `Service-Signature` with keys from Secrets
 * Manager and forwards verified events to an encrypted SQS queue with a dead-letter queue, watched
 * by CloudWatch alarms. An example consumer reads the queue with partial batch failures.
 */
export class WebhookReceiver extends Construct {
  /** The REST API; `POST /webhook` is its only route. */
  public readonly api: apigateway.RestApi;
  /** The URL to register with the booking service. */
  public readonly url: string;
  /** The receiver function (add environment variables here, e.g. `SECRET_CACHE_SECONDS`). */
  public readonly handler: nodejs.NodejsFunction;
  /** The queue verified events are forwarded to. */
  public readonly queue: sqs.Queue;
  /** Where messages land after the consumer failed on them 5 times. */
  public readonly deadLetterQueue: sqs.Queue;
  /** The secret holding the signing key. */
  public readonly secret: secretsmanager.ISecret;
  /** The example consumer, when {@link WebhookReceiverProps.consumer} is on. */
  public readonly consumer: nodejs.NodejsFunction | undefined;
  /** The topic the alarms notify, when {@link WebhookReceiverProps.alarmEmail} is set. */
  public readonly alarmTopic: sns.Topic | undefined;
  /** The alarms, by what they watch. */
  public readonly alarms: WebhookReceiverAlarms;
  /** The API's access log group. */
  public readonly accessLogGroup: logs.LogGroup;

  private readonly settings: Settings;

  constructor(scope: Construct, id: string, props: WebhookReceiverProps = {}) {
    super(scope, id);
    this.settings = resolveSettings(props);

    this.secret = props.secret ?? this.createPlaceholderSecret();
    this.deadLetterQueue = this.createQueue('DeadLetterQueue');
    this.queue = this.createQueue('Queue', {
      queue: this.deadLetterQueue,
      maxReceiveCount: QUEUE_SETTINGS.maxReceiveCount,
    });

    this.handler = this.createReceiverFunction();
    this.secret.grantRead(this.handler);
    this.queue.grantSendMessages(this.handler);

    this.accessLogGroup = this.createLogGroup('AccessLogs');
    this.api = this.createApi();
    this.url = this.api.urlForPath('/webhook');

    this.consumer = this.settings.consumer ? this.createConsumerFunction() : undefined;
    this.alarmTopic = this.settings.alarmEmail
      ? this.createAlarmTopic(this.settings.alarmEmail)
      : undefined;
    this.alarms = this.createAlarms();
  }

  private createPlaceholderSecret(): secretsmanager.ISecret {
    // Random rather than a fixed text: a placeholder anyone can read in this repository would be a
    // key anyone can sign with. CloudFormation only writes the value on creation (or when these
    // options change), so a key put in later with put-secret-value survives redeploys.
    const secret = new secretsmanager.Secret(this, 'SigningKey', {
      description:
        'Webhook signing key issued by the booking service (replace the random placeholder with put-secret-value)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    // Secret declares secretFullArn as `string | undefined`, which exactOptionalPropertyTypes
    // does not accept for ISecret's optional field; the object is an ISecret all the same.
    return secret as secretsmanager.ISecret;
  }

  private createQueue(id: string, deadLetterQueue?: sqs.DeadLetterQueue): sqs.Queue {
    return new sqs.Queue(this, id, {
      // SQS-managed SSE: encrypted at rest at no cost, and no KMS key policy to keep in step with
      // every producer and consumer (a customer managed key adds cost and a failure mode).
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.seconds(QUEUE_SETTINGS.retentionPeriodSeconds),
      maxMessageSizeBytes: QUEUE_SETTINGS.maxMessageSizeBytes,
      ...(this.settings.fifo ? { fifo: true } : {}),
      ...(deadLetterQueue
        ? {
            deadLetterQueue,
            visibilityTimeout: Duration.seconds(QUEUE_SETTINGS.visibilityTimeoutSeconds),
          }
        : {}),
    });
  }

  private createLogGroup(id: string): logs.LogGroup {
    return new logs.LogGroup(this, id, { retention: this.settings.logRetention });
  }

  /**
   * A Node.js 24 ARM64 function bundled locally by esbuild (no Docker): minified ESM with the AWS
   * SDK inside, so the deployed code runs the SDK versions the tests ran, and source maps for
   * readable stack traces. Its role may only write to its own log group: no managed policy.
   */
  private createFunction(
    id: string,
    entry: string,
    options: {
      memorySize: number;
      timeout: Duration;
      description: string;
      environment: Record<string, string>;
    },
  ): nodejs.NodejsFunction {
    const logGroup = this.createLogGroup(`${id}Logs`);
    const role = new iam.Role(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${options.description}`,
    });
    logGroup.grantWrite(role);
    return new nodejs.NodejsFunction(this, id, {
      entry: join(PROJECT_ROOT, entry),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      handler: 'handler',
      runtime: LAMBDA_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: options.memorySize,
      timeout: options.timeout,
      description: options.description,
      role,
      logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: this.settings.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
        NODE_OPTIONS: '--enable-source-maps',
        ...options.environment,
      },
      bundling: LAMBDA_BUNDLING,
    });
  }

  private createReceiverFunction(): nodejs.NodejsFunction {
    return this.createFunction('Receiver', 'lambda/receiver/index.ts', {
      memorySize: RECEIVER_MEMORY_MB,
      // A warm call takes milliseconds. The receiver gives a key load and a send 5 s each before it
      // answers 503 with Retry-After; 15 s lets those deadlines end first (a Lambda timeout would
      // reach the sender as an unexplained 502) and still ends before API Gateway's 29 s limit.
      timeout: Duration.seconds(15),
      description: 'Verifies signed booking-service webhooks and forwards them to SQS',
      environment: {
        SECRET_ID: this.secret.secretArn,
        QUEUE_URL: this.queue.queueUrl,
        SIGNATURE_TOLERANCE_SECONDS: String(this.settings.signatureToleranceSeconds),
        PREVIOUS_KEY_GRACE_SECONDS: String(this.settings.previousKeyGraceSeconds),
        FORWARD_EVENTS: this.settings.forwardEvents.join(','),
      },
    });
  }

  private createApi(): apigateway.RestApi {
    const api = new apigateway.RestApi(this, 'Api', {
      // Unique in the account: API Gateway metrics (and so the 5xx alarm) are keyed by this name.
      restApiName: Names.uniqueResourceName(this, { maxLength: 128, separator: '-' }),
      description: 'Receives signed webhooks from the booking service',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      cloudWatchRole: this.settings.apiGatewayCloudWatchRole,
      deployOptions: {
        throttlingRateLimit: this.settings.throttleRateLimit,
        throttlingBurstLimit: this.settings.throttleBurstLimit,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: ACCESS_LOG_FORMAT,
        metricsEnabled: true,
        // Errors only, and never request bodies: payloads carry the booking user's name and e-mail.
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
    });
    api.root
      .addResource('webhook')
      .addMethod('POST', new apigateway.LambdaIntegration(this.handler, { proxy: true }));
    // RestApi always adds an output with the stage's base URL; registering that URL instead of
    // `url` (which ends in /webhook) would send every delivery to a 403.
    api.node.tryRemoveChild('Endpoint');
    return api;
  }

  private createConsumerFunction(): nodejs.NodejsFunction {
    const consumer = this.createFunction('Consumer', 'lambda/consumer/index.ts', {
      // Parsing and validating a batch of at most 10 small JSON messages needs little memory.
      memorySize: 256,
      timeout: CONSUMER_TIMEOUT,
      description: 'Example consumer of verified booking-service webhooks',
      // Its own service name, so its logs and metrics are not mistaken for the receiver's.
      environment: { POWERTOOLS_SERVICE_NAME: `${this.settings.serviceName}-consumer` },
    });
    consumer.addEventSource(
      new SqsEventSource(this.queue, {
        // Small batches: a poison message costs one retry of its own record (partial batch
        // responses), and 10 is the most a FIFO queue delivers per batch anyway.
        batchSize: CONSUMER_BATCH_SIZE,
        // Bookings are few and should arrive promptly: wait at most 1 s to fill a batch. FIFO
        // event sources do not support a batching window.
        ...(this.settings.fifo ? {} : { maxBatchingWindow: CONSUMER_BATCHING_WINDOW }),
        reportBatchItemFailures: true,
      }),
    );
    return consumer;
  }

  private createAlarmTopic(email: string): sns.Topic {
    const topic = new sns.Topic(this, 'AlarmTopic', {
      displayName: 'Webhook receiver alarms',
      enforceSSL: true,
    });
    // A topic policy replaces SNS's default one, so CloudWatch must be allowed explicitly, and only
    // for alarms of this account and region.
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarms',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: {
            'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
          },
        },
      }),
    );
    topic.addSubscription(new EmailSubscription(email));
    return topic;
  }

  private createAlarms(): WebhookReceiverAlarms {
    const fiveMinutes = Duration.minutes(5);
    return {
      deadLetterQueueNotEmpty: this.alarm('DeadLetterQueueNotEmpty', {
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          statistic: cloudwatch.Stats.MAXIMUM,
          period: Duration.minutes(1),
        }),
        threshold: 0,
        description: 'The dead-letter queue holds bookings the consumer failed on 5 times.',
      }),
      oldestMessageAge: this.alarm('OldestMessageAge', {
        metric: this.queue.metricApproximateAgeOfOldestMessage({
          statistic: cloudwatch.Stats.MAXIMUM,
          period: Duration.minutes(1),
        }),
        threshold: this.settings.messageAgeAlarmThreshold.toSeconds(),
        description: 'Queued bookings wait too long: the consumer is down or too slow.',
      }),
      receiverErrors: this.alarm('ReceiverErrors', {
        metric: this.handler.metricErrors({ period: fiveMinutes }),
        threshold: 0,
        description: 'The receiver function failed with an uncaught error.',
      }),
      receiverThrottles: this.alarm('ReceiverThrottles', {
        metric: this.handler.metricThrottles({ period: fiveMinutes }),
        threshold: 0,
        description: 'The receiver function was throttled; deliveries were refused.',
      }),
      apiServerErrors: this.alarm('ApiServerErrors', {
        metric: this.api.metricServerError({
          period: fiveMinutes,
          statistic: cloudwatch.Stats.SUM,
        }),
        threshold: 0,
        description: 'The API answered 5xx: deliveries were not acknowledged and will be retried.',
      }),
      signatureRejections: this.alarm('SignatureRejections', {
        metric: new cloudwatch.Metric({
          namespace: CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
          metricName: METRIC_NAMES.signatureRejected,
          dimensionsMap: { service: this.settings.serviceName },
          statistic: cloudwatch.Stats.SUM,
          period: fiveMinutes,
        }),
        threshold: this.settings.signatureRejectionAlarmThreshold - 1,
        description:
          'A spike of requests with a missing or wrong signature: forgery or a stale key.',
      }),
    };
  }

  /** An alarm on `metric > threshold` over one period that treats missing data as healthy. */
  private alarm(
    id: string,
    options: { metric: cloudwatch.IMetric; threshold: number; description: string },
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, `${id}Alarm`, {
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // No traffic means nothing is wrong: metrics for queues and functions are absent when idle.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    if (this.alarmTopic) {
      alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    }
    return alarm;
  }
}

const CONSUMER_TIMEOUT = Duration.seconds(CONSUMER_TIMEOUT_SECONDS);
const CONSUMER_BATCHING_WINDOW = Duration.seconds(CONSUMER_BATCHING_WINDOW_SECONDS);

/** JSON access log line: who called, what was answered, and how long the receiver took. */
const ACCESS_LOG_FORMAT = apigateway.AccessLogFormat.custom(
  JSON.stringify({
    requestId: apigateway.AccessLogField.contextRequestId(),
    sourceIp: apigateway.AccessLogField.contextIdentitySourceIp(),
    requestTime: apigateway.AccessLogField.contextRequestTime(),
    httpMethod: apigateway.AccessLogField.contextHttpMethod(),
    resourcePath: apigateway.AccessLogField.contextResourcePath(),
    status: apigateway.AccessLogField.contextStatus(),
    responseLength: apigateway.AccessLogField.contextResponseLength(),
    responseLatency: apigateway.AccessLogField.contextResponseLatency(),
    integrationStatus: apigateway.AccessLogField.contextIntegrationStatus(),
    integrationErrorMessage: apigateway.AccessLogField.contextIntegrationErrorMessage(),
    errorMessage: apigateway.AccessLogField.contextErrorMessage(),
  }),
);

/** Props with defaults applied and values checked. */
interface Settings {
  readonly fifo: boolean;
  readonly signatureToleranceSeconds: number;
  readonly previousKeyGraceSeconds: number;
  readonly forwardEvents: readonly string[];
  readonly throttleRateLimit: number;
  readonly throttleBurstLimit: number;
  readonly alarmEmail: string | undefined;
  readonly consumer: boolean;
  readonly serviceName: string;
  readonly logRetention: logs.RetentionDays;
  readonly signatureRejectionAlarmThreshold: number;
  readonly messageAgeAlarmThreshold: Duration;
  readonly apiGatewayCloudWatchRole: boolean;
}

const EVENT_NAME = /^[A-Za-z0-9_.:-]+$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

function resolveSettings(props: WebhookReceiverProps): Settings {
  const forwardEvents = props.forwardEvents ?? [CONFIG_DEFAULTS.FORWARD_EVENTS];
  // Names are checked here because FORWARD_EVENTS is their comma-joined list; the rest of the
  // rule is the receiver's own, so the stack cannot deploy a list the function refuses.
  const badEvent = forwardEvents.find((event) => event !== '*' && !EVENT_NAME.test(event));
  if (badEvent !== undefined) {
    throw new InvalidWebhookReceiverPropsError(
      `forwardEvents entry ${JSON.stringify(badEvent)} is not an event type: use letters, digits, '_', '.', ':' or '-', or '*' alone`,
    );
  }
  const checkedEvents = checkForwardEvents(forwardEvents);
  if (!checkedEvents.ok) {
    throw new InvalidWebhookReceiverPropsError(
      `forwardEvents ${checkedEvents.problem}, got ${JSON.stringify(forwardEvents)}`,
    );
  }
  if (props.alarmEmail !== undefined && !EMAIL.test(props.alarmEmail)) {
    throw new InvalidWebhookReceiverPropsError(
      `alarmEmail ${JSON.stringify(props.alarmEmail)} is not an e-mail address`,
    );
  }
  const serviceName = props.serviceName ?? CONFIG_DEFAULTS.POWERTOOLS_SERVICE_NAME;
  if (serviceName.trim() === '') {
    throw new InvalidWebhookReceiverPropsError('serviceName must not be empty');
  }
  const messageAgeAlarmThreshold = props.messageAgeAlarmThreshold ?? Duration.minutes(15);
  if (!messageAgeAlarmThreshold.isUnresolved() && messageAgeAlarmThreshold.toSeconds() < 60) {
    throw new InvalidWebhookReceiverPropsError(
      'messageAgeAlarmThreshold must be at least one minute: SQS publishes the age once a minute',
    );
  }
  return {
    fifo: props.fifo ?? false,
    signatureToleranceSeconds: checkInteger(
      'signatureToleranceSeconds',
      props.signatureToleranceSeconds ?? CONFIG_DEFAULTS.SIGNATURE_TOLERANCE_SECONDS,
      1,
      3600,
    ),
    previousKeyGraceSeconds: checkInteger(
      'previousKeyGraceSeconds',
      props.previousKeyGraceSeconds ?? CONFIG_DEFAULTS.PREVIOUS_KEY_GRACE_SECONDS,
      0,
      Number.MAX_SAFE_INTEGER,
    ),
    forwardEvents,
    throttleRateLimit: checkPositive('throttleRateLimit', props.throttleRateLimit ?? 100),
    throttleBurstLimit: checkInteger(
      'throttleBurstLimit',
      props.throttleBurstLimit ?? 200,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    alarmEmail: props.alarmEmail,
    consumer: props.consumer ?? true,
    serviceName,
    logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    signatureRejectionAlarmThreshold: checkInteger(
      'signatureRejectionAlarmThreshold',
      props.signatureRejectionAlarmThreshold ?? 10,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    messageAgeAlarmThreshold,
    apiGatewayCloudWatchRole: props.apiGatewayCloudWatchRole ?? true,
  };
}

/** Checks an integer in [min, max]; tokens (e.g. CloudFormation parameters) are left to deploy time. */
function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Token.isUnresolved(value) && !(Number.isInteger(value) && value >= min && value <= max)) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new InvalidWebhookReceiverPropsError(`${name} must be an integer ${range}, got ${value}`);
  }
  return value;
}

function checkPositive(name: string, value: number): number {
  if (!Token.isUnresolved(value) && !(Number.isFinite(value) && value > 0)) {
    throw new InvalidWebhookReceiverPropsError(`${name} must be a number above 0, got ${value}`);
  }
  return value;
}
