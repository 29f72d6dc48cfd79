import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as apigatewayv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { endpointIdSuffix } from '../lambda/contract/endpoints.js';
import { createAlarms, createAlarmTopic, type WebhookReceiverAlarms } from './alarms.js';
import { createArchive } from './archive.js';
import { createConsumerFunction } from './consumer-function.js';
import { createDashboard } from './dashboard.js';
import { createEndpointDirectory } from './endpoint-directory.js';
import type { ServedWebhookEndpoint } from './endpoints.js';
import { IdempotencyTable } from './idempotency-table.js';
import { warnOfIpv4OnlyAllowlist } from './ingress/custom-domain.js';
import { INGRESS_FACTORIES } from './ingress/index.js';
import { createQueues } from './queues.js';
import { createReceiverFunction } from './receiver-function.js';
import { resolveSettings } from './receiver-settings.js';
import { createPlaceholderSecret } from './signing-key.js';
import type { WebhookReceiverProps } from './webhook-receiver-props.js';

/**
 * Production receiver for the booking service's signed webhooks: a front door of your choice
 * (HTTP API, REST API or function URL, `POST /webhook`, or `POST /webhook/<name>` per endpoint
 * with a key of its own) invokes a Lambda that verifies the
 * `Service-Signature` with keys from Secrets Manager and forwards verified events to an encrypted
 * SQS queue with a dead-letter queue (or to your own queue), watched by CloudWatch alarms. The
 * cdk-nag findings this design accepts are acknowledged on its own resources, with reasons.
 */
export class WebhookReceiver extends Construct {
  /**
   * The API (`http-api`: HTTP API, `rest-api`: REST API); its only routes are `POST /webhook`, or
   * `POST /webhook/<name>` per endpoint.
   */
  public readonly api: apigatewayv2.HttpApi | apigateway.RestApi | undefined;
  /** The function URL, with `ingress: 'function-url'`. */
  public readonly functionUrl: lambda.FunctionUrl | undefined;
  /** The API Gateway custom domain, with `domainName`. */
  public readonly customDomain: apigatewayv2.DomainName | apigateway.DomainName | undefined;
  /**
   * The full URL to register with the booking service; with `endpoints`, the prefix of their
   * URLs, which serves no endpoint itself (register {@link WebhookReceiver.endpoints}' URLs).
   */
  public readonly url: string;
  /** The receiver function. */
  public readonly receiverFunction: nodejs.NodejsFunction;
  /**
   * The queue verified events are forwarded to (`existingQueue` when given). Its redrive policy is
   * set on the underlying `CfnQueue`, so CDK's `Queue.deadLetterQueue` is not set on it: use
   * {@link WebhookReceiver.deadLetterQueue}.
   */
  public readonly queue: sqs.IQueue;
  /** Where messages land after the consumer failed on them 5 times; none with `existingQueue`. */
  public readonly deadLetterQueue: sqs.Queue | undefined;
  /** The secret holding the signing key; none with `endpoints`, where each endpoint has its own. */
  public readonly secret: secretsmanager.ISecret | undefined;
  /** The named endpoints, with their URLs and secrets, in the order given; empty without `endpoints`. */
  public readonly endpoints: readonly ServedWebhookEndpoint[];
  /**
   * With `endpoints`, the endpoint directory: a secret whose value maps each endpoint's name to
   * its secret's ARN (`{ "secretIds": { ... }, "jsonFields"?: { ... } }`), which the receiver
   * reads on its first call (`ENDPOINT_DIRECTORY_SECRET_ID`) so that its environment stays small
   * however many endpoints it serves. It holds no key.
   */
  public readonly endpointDirectory: secretsmanager.ISecret | undefined;
  /** The example consumer, when {@link WebhookReceiverProps.consumer} is on. */
  public readonly consumer: nodejs.NodejsFunction | undefined;
  /**
   * The DynamoDB table of the example consumer's idempotency records, when
   * {@link WebhookReceiverProps.idempotency} is on.
   */
  public readonly idempotencyTable: dynamodb.Table | undefined;
  /** The topic the alarms notify, when {@link WebhookReceiverProps.alarmEmail} is set. */
  public readonly alarmTopic: sns.Topic | undefined;
  /** The alarms, by what they watch. */
  public readonly alarms: WebhookReceiverAlarms;
  /** The API's access log group; none for a function URL. */
  public readonly accessLogGroup: logs.LogGroup | undefined;
  /** The bucket of archived calls, with {@link WebhookReceiverProps.archive}. Holds personal data. */
  public readonly archiveBucket: s3.Bucket | undefined;
  /** The Firehose delivery stream the receiver archives through, with `archive`. */
  public readonly archiveStream: firehose.DeliveryStream | undefined;
  /** The receiver's dashboard (add widgets of your own with `addWidgets`); none with `dashboard: false`. */
  public readonly dashboard: cloudwatch.Dashboard | undefined;

  constructor(scope: Construct, id: string, props: WebhookReceiverProps = {}) {
    super(scope, id);
    const settings = resolveSettings(this, props);

    const endpointKeys = settings.endpoints.map(({ name, secret, secretJsonField }) => ({
      name,
      secret: secret ?? createPlaceholderSecret(this, `SigningKey${endpointIdSuffix(name)}`, name),
      secretJsonField,
    }));
    this.secret =
      settings.endpoints.length > 0
        ? undefined
        : (props.secret ?? createPlaceholderSecret(this, 'SigningKey'));
    const { queue, deadLetterQueue } = createQueues(this, settings);
    this.queue = queue;
    this.deadLetterQueue = deadLetterQueue;
    const directory =
      this.secret === undefined ? createEndpointDirectory(this, endpointKeys) : undefined;
    this.endpointDirectory = directory?.secret;
    this.receiverFunction = createReceiverFunction(
      this,
      settings,
      directory === undefined
        ? { secret: this.secret as secretsmanager.ISecret }
        : { endpoints: endpointKeys, directory },
      this.queue,
    );

    const archive = settings.archive
      ? createArchive(this, settings, this.receiverFunction)
      : undefined;
    this.archiveBucket = archive?.bucket;
    this.archiveStream = archive?.stream;

    const ingress = INGRESS_FACTORIES[settings.ingress](this, settings, this.receiverFunction);
    warnOfIpv4OnlyAllowlist(this, settings);
    this.api = ingress.api;
    this.functionUrl = ingress.functionUrl;
    this.customDomain = ingress.customDomain;
    this.accessLogGroup = ingress.accessLogGroup;
    this.url = ingress.url;
    this.endpoints = endpointKeys.map((endpoint) => ({
      ...endpoint,
      url: `${ingress.url}/${endpoint.name}`,
    }));

    const idempotency = settings.idempotency
      ? new IdempotencyTable(this, 'Idempotency', {
          ...(settings.idempotencyTtl ? { idempotencyTtl: settings.idempotencyTtl } : {}),
          removalPolicy: settings.idempotencyTableRemovalPolicy,
        })
      : undefined;
    this.idempotencyTable = idempotency?.table;
    this.consumer = settings.consumer
      ? createConsumerFunction(this, settings, this.queue, idempotency)
      : undefined;
    this.alarmTopic = settings.alarmEmail ? createAlarmTopic(this, settings.alarmEmail) : undefined;
    this.alarms = createAlarms(
      this,
      settings,
      {
        queue: this.queue,
        deadLetterQueue: this.deadLetterQueue,
        receiverFunction: this.receiverFunction,
        serverErrors: ingress.serverErrors,
        accessLogGroup: ingress.accessLogGroup,
        archiveStream: this.archiveStream,
      },
      [...settings.alarmActions, ...(this.alarmTopic ? [new SnsAction(this.alarmTopic)] : [])],
    );
    this.dashboard = settings.dashboard
      ? createDashboard(this, settings, {
          queue: this.queue,
          deadLetterQueue: this.deadLetterQueue,
          receiverFunction: this.receiverFunction,
          api: this.api,
          accessLogGroup: this.accessLogGroup,
          consumer: this.consumer,
          archiveStream: this.archiveStream,
        })
      : undefined;
  }
}
