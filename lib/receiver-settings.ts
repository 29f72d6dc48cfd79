import { Duration, Names, RemovalPolicy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CONFIG_DEFAULTS } from '../lambda/contract/environment.js';
import {
  CONSUMER_BATCH_SIZE,
  CONSUMER_BATCHING_WINDOW_SECONDS,
} from '../lambda/contract/queue-settings.js';
import type { SettingRow } from '../lambda/contract/setting-kinds.js';
import { SETTINGS, type SettingProp } from '../lambda/contract/settings.js';
import { InvalidWebhookReceiverPropsError } from './configuration-error.js';
import type { WebhookEndpoint } from './endpoints.js';
import {
  type CustomDomainSettings,
  checkArchiveOptions,
  checkCustomDomain,
  checkEndpoints,
  checkExistingQueueOptions,
  checkIdempotencyOptions,
  checkIngressOptions,
  checkQueuePropsAgainstProps,
  checkReceiverFunctionOverrides,
} from './prop-checks.js';
import { checkedValue } from './setting-checks.js';
import type {
  FunctionPropsOverrides,
  IngressKind,
  WebhookReceiverProps,
} from './webhook-receiver-props.js';

export { InvalidWebhookReceiverPropsError } from './configuration-error.js';
export type { CustomDomainSettings } from './prop-checks.js';

/** Default memory of the receiver function, in MB (the settings table's `receiverMemorySize`). */
export const RECEIVER_MEMORY_MB: number = SETTINGS.receiverMemorySize.default;

/** Lambda's own lines kept by default (the settings table's `systemLogLevel`). */
export const DEFAULT_SYSTEM_LOG_LEVEL = lambda.SystemLogLevel[SETTINGS.systemLogLevel.default];

/**
 * The front doors that enforce `allowedSourceIps` themselves, with a resource policy: API Gateway
 * refuses other sources without invoking the receiver. Behind the others the receiver enforces
 * it (`ALLOWED_SOURCE_IPS`).
 */
export const INGRESS_WITH_SOURCE_POLICY: readonly IngressKind[] = ['rest-api'];

/**
 * The rows of the settings table whose prop is not a value the construct takes as it is: the
 * stack's ARNs, the context's endpoint names, a `Duration` (checked by the idempotency table) and
 * the service name (checked, but its default is the construct's own).
 */
const NOT_CONSTRUCT_VALUES = [
  'certificateArn',
  'secretArn',
  'secretKmsKeyArn',
  'archiveKmsKeyArn',
  'endpoints',
  'idempotencyTtl',
  'serviceName',
] as const;

/** Every other row's prop, which {@link WebhookReceiverProps} must have (the types say so). */
type TableProp = Exclude<SettingProp, (typeof NOT_CONSTRUCT_VALUES)[number]>;

/** The props checked, and given their defaults, by one loop ({@link tableSettingValues}). */
const TABLE_PROPS = (Object.keys(SETTINGS) as SettingProp[]).filter(
  (prop): prop is TableProp => !(NOT_CONSTRUCT_VALUES as readonly string[]).includes(prop),
);

/** The props of {@link TABLE_PROPS} checked, with the table's default where a prop is absent. */
export type TableSettingValues = {
  readonly [Prop in TableProp]: (typeof SETTINGS)[Prop] extends { readonly default: unknown }
    ? Exclude<WebhookReceiverProps[Prop], undefined>
    : WebhookReceiverProps[Prop];
};

/** Props with defaults applied and values checked: what the parts of the construct build from. */
export interface ReceiverSettings extends TableSettingValues {
  readonly existingQueue: sqs.IQueue | undefined;
  readonly queueProps: sqs.QueueProps;
  readonly receiverFunctionProps: FunctionPropsOverrides | undefined;
  readonly idempotencyTableRemovalPolicy: RemovalPolicy;
  readonly deadLetterQueueProps: sqs.QueueProps;
  /** The named endpoints; empty for the single endpoint `POST /webhook`. */
  readonly endpoints: readonly WebhookEndpoint[];
  readonly alarmActions: readonly cloudwatch.IAlarmAction[];
  readonly consumerBatchSize: number;
  readonly consumerMaxBatchingWindow: Duration;
  readonly idempotencyTtl: Duration | undefined;
  readonly serviceName: string;
  readonly logRetention: logs.RetentionDays;
  readonly signatureRejectionAlarmThreshold: number;
  readonly messageAgeAlarmThreshold: Duration;
  readonly customDomain: CustomDomainSettings | undefined;
  /** Whether the API's generated `execute-api` endpoint is turned off (only with a custom domain). */
  readonly disableDefaultEndpoint: boolean;
  /** The customer managed key of the archive bucket (`archiveEncryptionKey`); SSE-S3 without. */
  readonly archiveEncryptionKey: kms.IKey | undefined;
}

/**
 * Applies the defaults and checks the props, naming the prop in every error.
 * @param scope the construct, whose path makes the default service name unique
 * @throws InvalidWebhookReceiverPropsError on a value the receiver cannot work with
 */
export function resolveSettings(scope: Construct, props: WebhookReceiverProps): ReceiverSettings {
  const error = InvalidWebhookReceiverPropsError;
  const values = tableSettingValues(props);
  checkIngressOptions(scope, values.ingress, props);
  const customDomain = checkCustomDomain(scope, values.ingress, props);
  const endpoints = checkEndpoints(scope, props);
  // The service name is the dimension of the receiver's own metrics (and so of their alarms):
  // the default carries a hash of the construct's path, so two receivers never share one.
  const serviceName =
    props.serviceName === undefined
      ? `${CONFIG_DEFAULTS.POWERTOOLS_SERVICE_NAME}-${Names.uniqueId(scope).slice(-8).toLowerCase()}`
      : checkedValue(SETTINGS.serviceName, props.serviceName, error);
  const messageAgeAlarmThreshold = props.messageAgeAlarmThreshold ?? Duration.minutes(15);
  if (!messageAgeAlarmThreshold.isUnresolved() && messageAgeAlarmThreshold.toSeconds() < 60) {
    throw new error(
      'messageAgeAlarmThreshold must be at least one minute: SQS publishes the age once a minute',
    );
  }
  const fifo = props.existingQueue?.fifo ?? values.fifo;
  if (props.existingQueue !== undefined && props.fifo !== undefined && props.fifo !== fifo) {
    throw new error(
      `fifo is ${props.fifo} but existingQueue is ${fifo ? 'a FIFO' : 'a standard'} queue`,
    );
  }
  if (fifo && props.consumerMaxBatchingWindow !== undefined) {
    throw new error(
      'consumerMaxBatchingWindow cannot be used with a FIFO queue: Lambda does not support a batching window there',
    );
  }
  checkIdempotencyOptions(props);
  checkExistingQueueOptions(props);
  checkQueuePropsAgainstProps(props, fifo);
  checkReceiverFunctionOverrides(props);
  checkArchiveOptions(scope, props);
  return {
    ...values,
    fifo,
    existingQueue: props.existingQueue,
    queueProps: props.queueProps ?? {},
    receiverFunctionProps: props.receiverFunctionProps,
    // The records live as long as the messages they describe: a queue's default is DESTROY.
    idempotencyTableRemovalPolicy: props.idempotencyTableRemovalPolicy ?? RemovalPolicy.DESTROY,
    deadLetterQueueProps: props.deadLetterQueueProps ?? {},
    endpoints,
    alarmActions: props.alarmActions ?? [],
    // FIFO event sources take at most 10 messages per batch; standard queues up to 10,000.
    consumerBatchSize: wholeNumber('consumerBatchSize', props.consumerBatchSize, {
      default: CONSUMER_BATCH_SIZE,
      minimum: 1,
      maximum: fifo ? 10 : 10_000,
    }),
    consumerMaxBatchingWindow:
      props.consumerMaxBatchingWindow ?? Duration.seconds(CONSUMER_BATCHING_WINDOW_SECONDS),
    idempotencyTtl: props.idempotencyTtl,
    serviceName,
    logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    signatureRejectionAlarmThreshold: wholeNumber(
      'signatureRejectionAlarmThreshold',
      props.signatureRejectionAlarmThreshold,
      { default: 10, minimum: 1 },
    ),
    messageAgeAlarmThreshold,
    customDomain,
    // Left open beside a custom domain, the generated endpoint would be a way around it.
    disableDefaultEndpoint: customDomain !== undefined && (props.disableDefaultEndpoint ?? true),
    archiveEncryptionKey: props.archiveEncryptionKey,
  };
}

/**
 * Each prop of {@link TABLE_PROPS} checked with its row (in the row's message, which names the
 * variable the Lambda reads it from), or the row's default when absent.
 */
function tableSettingValues(props: WebhookReceiverProps): TableSettingValues {
  const entries = TABLE_PROPS.map((prop) => {
    const row: SettingRow = SETTINGS[prop];
    const given = props[prop];
    return [
      prop,
      given === undefined
        ? row.default
        : checkedValue(row, given, InvalidWebhookReceiverPropsError),
    ] as const;
  });
  return Object.fromEntries(entries) as unknown as TableSettingValues;
}

/** A whole-number prop that has no row (no context key, no variable), with the same check. */
function wholeNumber(
  prop: string,
  given: number | undefined,
  rule: { readonly default: number; readonly minimum: number; readonly maximum?: number },
): number {
  if (given === undefined) return rule.default;
  const row = { kind: 'whole-number', prop, unit: '', summary: '', ...rule } as const;
  return checkedValue(row, given, InvalidWebhookReceiverPropsError);
}
