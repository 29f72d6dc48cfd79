import { Duration, Names, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DEFAULT_ARCHIVE_DAYS, MAX_ARCHIVE_DAYS } from '../lambda/contract/archive-layout.js';
import { STAGE_THROTTLE_DEFAULTS } from '../lambda/contract/capacity-settings.js';
import {
  ENDPOINT_NAME_RULE,
  endpointIdSuffix,
  isEndpointName,
} from '../lambda/contract/endpoints.js';
import { CONFIG_DEFAULTS } from '../lambda/contract/environment.js';
import { checkForwardEvents } from '../lambda/contract/forward-events.js';
import {
  CONSUMER_BATCH_SIZE,
  CONSUMER_BATCHING_WINDOW_SECONDS,
  CONSUMER_TIMEOUT_SECONDS,
} from '../lambda/contract/queue-settings.js';
import {
  checkWholeNumber,
  RECEIVER_SETTINGS,
  type WholeNumberSettingProp,
} from '../lambda/contract/settings.js';
import { parseSourceAllowlist } from '../lambda/contract/source-allowlist.js';
import { InvalidConfigurationError } from './configuration-error.js';
import type { WebhookEndpoint } from './endpoints.js';
import { KMS_KEY_ARN } from './key-use.js';
import {
  type FunctionPropsOverrides,
  INGRESS_KINDS,
  type IngressKind,
  type WebhookReceiverProps,
} from './webhook-receiver-props.js';

/**
 * Default memory of the receiver function, in MB: the smallest multiple of 64 MB with half again
 * the peak memory measured (`npm run bench -- footprint`: 108-113 MB peak RSS over 3,000 queued
 * calls of the deployed bundle; 128 MB would leave 15-20 MB). Memory buys CPU on Lambda, but a
 * warm call is mostly the SendMessage round trip, the same at every size: 50 ms billed at 192 MB
 * against 32 ms at 512 MB for a measured p99 of 3.24 ms, $0.13 instead of $0.21 per million calls
 * (`npm run bench -- cost`, 2026-11-27); on the 2026-11-28 host, twice as slow at a bare HMAC, a
 * p99 of 7.91 ms gave 93 ms against 48 ms, $0.23 instead of $0.32. The price is a slower cold
 * start: 79-188 ms of CPU at one vCPU for load and first call, 0.7-1.7 s at 192 MB.
 */
export const RECEIVER_MEMORY_MB = 192;

/**
 * Lambda's own lines kept by default: WARN drops START, END and REPORT (339 bytes per invocation,
 * $0.17 per million calls of CloudWatch Logs in `npm run bench -- cost`); their figures stay
 * available as the functions' Duration, Errors and Throttles metrics.
 */
export const DEFAULT_SYSTEM_LOG_LEVEL = lambda.SystemLogLevel.WARN;

/**
 * The front doors that enforce `allowedSourceIps` themselves, with a resource policy: API Gateway
 * refuses other sources without invoking the receiver. Behind the others the receiver enforces
 * it (`ALLOWED_SOURCE_IPS`).
 */
export const INGRESS_WITH_SOURCE_POLICY: readonly IngressKind[] = ['rest-api'];

/** The front doors that can serve a custom domain (`domainName`): API Gateway's. */
export const INGRESS_WITH_CUSTOM_DOMAIN: readonly IngressKind[] = ['http-api', 'rest-api'];

/** The user's own domain in front of the API, from `domainName`, `certificate` and the hosted zone. */
export interface CustomDomainSettings {
  readonly domainName: string;
  readonly certificate: acm.ICertificate;
  /** Where to create the alias records (A and AAAA); none without `hostedZoneId`. */
  readonly hostedZone: { readonly hostedZoneId: string; readonly zoneName: string } | undefined;
}

/** Thrown when {@link WebhookReceiverProps} hold a value the receiver cannot work with. */
export class InvalidWebhookReceiverPropsError extends InvalidConfigurationError {}

/** Props with defaults applied and values checked: what the parts of the construct build from. */
export interface ReceiverSettings {
  readonly ingress: IngressKind;
  readonly webAclArn: string | undefined;
  readonly reservedConcurrency: number | undefined;
  readonly fifo: boolean;
  readonly existingQueue: sqs.IQueue | undefined;
  readonly queueProps: sqs.QueueProps;
  readonly receiverFunctionProps: FunctionPropsOverrides | undefined;
  readonly idempotencyTableRemovalPolicy: RemovalPolicy;
  readonly deadLetterQueueProps: sqs.QueueProps;
  readonly signatureToleranceSeconds: number;
  readonly previousKeyGraceSeconds: number;
  readonly secretCacheSeconds: number;
  readonly maxBodyBytes: number;
  readonly forwardEvents: readonly string[];
  readonly secretJsonField: string | undefined;
  /** The named endpoints; empty for the single endpoint `POST /webhook`. */
  readonly endpoints: readonly WebhookEndpoint[];
  readonly throttleRateLimit: number;
  readonly throttleBurstLimit: number;
  readonly alarmEmail: string | undefined;
  readonly alarmActions: readonly cloudwatch.IAlarmAction[];
  readonly consumer: boolean;
  readonly consumerBatchSize: number;
  readonly consumerMaxBatchingWindow: Duration;
  readonly idempotency: boolean;
  readonly idempotencyTtl: Duration | undefined;
  readonly tracing: boolean;
  readonly receiverMemorySize: number;
  readonly systemLogLevel: lambda.SystemLogLevel;
  readonly serviceName: string;
  readonly logRetention: logs.RetentionDays;
  readonly signatureRejectionAlarmThreshold: number;
  readonly messageAgeAlarmThreshold: Duration;
  /** Minutes without a verified delivery that raise the silence alarm(s); 0 for none. */
  readonly silenceAlarmMinutes: number;
  readonly dashboard: boolean;
  readonly apiGatewayCloudWatchRole: boolean;
  readonly customDomain: CustomDomainSettings | undefined;
  /** Whether the API's generated `execute-api` endpoint is turned off (only with a custom domain). */
  readonly disableDefaultEndpoint: boolean;
  /** The allowed source ranges as `address/prefix`; `undefined` lets every source in. */
  readonly allowedSourceIps: readonly string[] | undefined;
  /** Whether every answered call is archived (`archive`). */
  readonly archive: boolean;
  /** Days an archived call is kept (`archiveDays`). */
  readonly archiveDays: number;
  /** The customer managed key of the archive bucket (`archiveEncryptionKey`); SSE-S3 without. */
  readonly archiveEncryptionKey: kms.IKey | undefined;
}

/** Default of {@link WebhookReceiverProps.silenceAlarmMinutes}. */
export const SILENCE_ALARM_DEFAULT_MINUTES = 60;

const EVENT_NAME = /^[A-Za-z0-9_.:-]+$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const WEB_ACL_ARN = /^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/[^/]+\/[^/]+$/;

/**
 * Applies the defaults and checks the props, naming the prop in every error.
 * @param scope the construct, whose path makes the default service name unique
 * @throws InvalidWebhookReceiverPropsError on a value the receiver cannot work with
 */
export function resolveSettings(scope: Construct, props: WebhookReceiverProps): ReceiverSettings {
  const ingress = props.ingress ?? 'http-api';
  if (!INGRESS_KINDS.includes(ingress)) {
    throw new InvalidWebhookReceiverPropsError(
      `ingress ${JSON.stringify(ingress)} is not one of ${INGRESS_KINDS.join(', ')}`,
    );
  }
  checkIngressOptions(ingress, props);
  const customDomain = checkCustomDomain(ingress, props);
  const forwardEvents = checkEvents(props.forwardEvents ?? [CONFIG_DEFAULTS.FORWARD_EVENTS]);
  if (props.alarmEmail !== undefined && !EMAIL.test(props.alarmEmail)) {
    throw new InvalidWebhookReceiverPropsError(
      `alarmEmail ${JSON.stringify(props.alarmEmail)} is not an e-mail address`,
    );
  }
  checkJsonField('secretJsonField', props.secretJsonField);
  const endpoints = checkEndpoints(props);
  // The service name is the dimension of the receiver's own metrics (and so of their alarms):
  // the default carries a hash of the construct's path, so two receivers never share one.
  const serviceName =
    props.serviceName ??
    `${CONFIG_DEFAULTS.POWERTOOLS_SERVICE_NAME}-${Names.uniqueId(scope).slice(-8).toLowerCase()}`;
  if (serviceName.trim() === '') {
    throw new InvalidWebhookReceiverPropsError('serviceName must not be empty');
  }
  const messageAgeAlarmThreshold = props.messageAgeAlarmThreshold ?? Duration.minutes(15);
  if (!messageAgeAlarmThreshold.isUnresolved() && messageAgeAlarmThreshold.toSeconds() < 60) {
    throw new InvalidWebhookReceiverPropsError(
      'messageAgeAlarmThreshold must be at least one minute: SQS publishes the age once a minute',
    );
  }
  const fifo = props.existingQueue?.fifo ?? props.fifo ?? false;
  if (props.existingQueue !== undefined && props.fifo !== undefined && props.fifo !== fifo) {
    throw new InvalidWebhookReceiverPropsError(
      `fifo is ${props.fifo} but existingQueue is ${fifo ? 'a FIFO' : 'a standard'} queue`,
    );
  }
  const consumerMaxBatchingWindow =
    props.consumerMaxBatchingWindow ?? Duration.seconds(CONSUMER_BATCHING_WINDOW_SECONDS);
  if (fifo && props.consumerMaxBatchingWindow !== undefined) {
    throw new InvalidWebhookReceiverPropsError(
      'consumerMaxBatchingWindow cannot be used with a FIFO queue: Lambda does not support a batching window there',
    );
  }
  checkIdempotencyOptions(props);
  checkExistingQueueOptions(props);
  checkQueuePropsAgainstProps(props, fifo);
  checkReceiverFunctionOverrides(props);
  return {
    ingress,
    webAclArn: props.webAclArn,
    reservedConcurrency: optionalInteger('reservedConcurrency', props.reservedConcurrency, 1),
    fifo,
    existingQueue: props.existingQueue,
    queueProps: props.queueProps ?? {},
    receiverFunctionProps: props.receiverFunctionProps,
    // The records live as long as the messages they describe: a queue's default is DESTROY.
    idempotencyTableRemovalPolicy: props.idempotencyTableRemovalPolicy ?? RemovalPolicy.DESTROY,
    deadLetterQueueProps: props.deadLetterQueueProps ?? {},
    ...receiverSettingValues(props),
    forwardEvents,
    secretJsonField: props.secretJsonField,
    endpoints,
    throttleRateLimit: checkPositive(
      'throttleRateLimit',
      props.throttleRateLimit ?? STAGE_THROTTLE_DEFAULTS.rateLimit,
    ),
    throttleBurstLimit: checkInteger(
      'throttleBurstLimit',
      props.throttleBurstLimit ?? STAGE_THROTTLE_DEFAULTS.burstLimit,
      1,
    ),
    alarmEmail: props.alarmEmail,
    alarmActions: props.alarmActions ?? [],
    consumer: props.consumer ?? false,
    // FIFO event sources take at most 10 messages per batch; standard queues up to 10,000.
    consumerBatchSize: checkInteger(
      'consumerBatchSize',
      props.consumerBatchSize ?? CONSUMER_BATCH_SIZE,
      1,
      fifo ? 10 : 10_000,
    ),
    consumerMaxBatchingWindow,
    idempotency: props.idempotency ?? false,
    idempotencyTtl: props.idempotencyTtl,
    tracing: props.tracing ?? false,
    // Lambda's range of memory sizes.
    receiverMemorySize: checkInteger(
      'receiverMemorySize',
      props.receiverMemorySize ?? RECEIVER_MEMORY_MB,
      128,
      10_240,
    ),
    systemLogLevel: props.systemLogLevel ?? DEFAULT_SYSTEM_LOG_LEVEL,
    serviceName,
    logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    signatureRejectionAlarmThreshold: checkInteger(
      'signatureRejectionAlarmThreshold',
      props.signatureRejectionAlarmThreshold ?? 10,
      1,
    ),
    messageAgeAlarmThreshold,
    // At most a day: the alarm's one period sums that long, and CloudWatch evaluates a period
    // under an hour over one day at most.
    silenceAlarmMinutes: checkInteger(
      'silenceAlarmMinutes',
      props.silenceAlarmMinutes ?? SILENCE_ALARM_DEFAULT_MINUTES,
      0,
      24 * 60,
    ),
    dashboard: props.dashboard ?? true,
    apiGatewayCloudWatchRole: props.apiGatewayCloudWatchRole ?? true,
    customDomain,
    // Left open beside a custom domain, the generated endpoint would be a way around it.
    disableDefaultEndpoint: customDomain !== undefined && (props.disableDefaultEndpoint ?? true),
    allowedSourceIps: checkAllowedSourceIps(props.allowedSourceIps),
    ...checkArchive(scope, props),
  };
}

/**
 * `archive`, and `archiveDays` and `archiveEncryptionKey`, which need it: a retention or a key
 * for no archive is a mistake.
 */
function checkArchive(
  scope: Construct,
  props: WebhookReceiverProps,
): Pick<ReceiverSettings, 'archive' | 'archiveDays' | 'archiveEncryptionKey'> {
  const archive = props.archive ?? false;
  for (const prop of ['archiveDays', 'archiveEncryptionKey'] as const) {
    if (props[prop] !== undefined && !archive) {
      throw new InvalidWebhookReceiverPropsError(`${prop} needs archive: true`);
    }
  }
  if (props.archiveEncryptionKey !== undefined) checkArchiveKey(scope, props.archiveEncryptionKey);
  return {
    archive,
    archiveEncryptionKey: props.archiveEncryptionKey,
    archiveDays: checkInteger(
      'archiveDays',
      props.archiveDays ?? DEFAULT_ARCHIVE_DAYS,
      1,
      MAX_ARCHIVE_DAYS,
    ),
  };
}

/**
 * Refuses an archive key Firehose could never write with, which would deploy an archive that
 * silently stays empty: an alias (the delivery role's permission would name the alias, and IAM
 * checks the key), or a key in another region than the stack's (S3 takes a bucket's key from
 * its own region only).
 */
function checkArchiveKey(scope: Construct, key: kms.IKey): void {
  if ('aliasName' in key || (!Token.isUnresolved(key.keyArn) && !KMS_KEY_ARN.test(key.keyArn))) {
    throw new InvalidWebhookReceiverPropsError(
      'archiveEncryptionKey must be a key, not an alias: pass the alias.aliasTargetKey or Key.fromKeyArn with the key ARN',
    );
  }
  const keyRegion = Token.isUnresolved(key.keyArn) ? undefined : key.keyArn.split(':')[3];
  const stackRegion = Stack.of(scope).region;
  if (keyRegion !== undefined && !Token.isUnresolved(stackRegion) && keyRegion !== stackRegion) {
    throw new InvalidWebhookReceiverPropsError(
      `archiveEncryptionKey is in ${keyRegion} but the stack is in ${stackRegion}: an S3 bucket's key must be in the bucket's region`,
    );
  }
}

/** A lower-case DNS name of at least two labels: API Gateway takes no upper case or wildcard here. */
const DOMAIN_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A Route 53 hosted zone id, e.g. `Z0123456789ABCDEFGHIJ` (without `/hostedzone/`). */
const HOSTED_ZONE_ID = /^[A-Z0-9]{1,32}$/;

/**
 * `domainName` with its `certificate`, and the hosted zone (`hostedZoneId` with
 * `hostedZoneName`) when given; `disableDefaultEndpoint` needs the domain, which is then the only
 * way in.
 */
function checkCustomDomain(
  ingress: IngressKind,
  props: WebhookReceiverProps,
): CustomDomainSettings | undefined {
  const { domainName, certificate, hostedZoneId, hostedZoneName } = props;
  if (domainName === undefined) {
    if (props.disableDefaultEndpoint) {
      throw new InvalidWebhookReceiverPropsError(
        'disableDefaultEndpoint needs domainName: without a custom domain the default endpoint is the only way in',
      );
    }
    const orphan = Object.entries({ certificate, hostedZoneId, hostedZoneName }).find(
      ([, value]) => value !== undefined,
    );
    if (orphan !== undefined) {
      throw new InvalidWebhookReceiverPropsError(`${orphan[0]} needs domainName`);
    }
    return undefined;
  }
  if (!INGRESS_WITH_CUSTOM_DOMAIN.includes(ingress)) {
    throw new InvalidWebhookReceiverPropsError(
      `domainName needs ingress ${INGRESS_WITH_CUSTOM_DOMAIN.join(' or ')}, got ingress ${ingress}: API Gateway serves a custom domain with its own certificate and mapping, a Lambda function URL has no custom domain (it would take a CloudFront distribution in front, a front door of its own)`,
    );
  }
  if (!Token.isUnresolved(domainName) && !DOMAIN_NAME.test(domainName)) {
    throw new InvalidWebhookReceiverPropsError(
      `domainName ${JSON.stringify(domainName)} is not a lower-case DNS name such as hooks.example.com`,
    );
  }
  if (certificate === undefined) {
    throw new InvalidWebhookReceiverPropsError(
      `domainName needs certificate: an ACM certificate for ${domainName} in the stack's region`,
    );
  }
  if ((hostedZoneId === undefined) !== (hostedZoneName === undefined)) {
    throw new InvalidWebhookReceiverPropsError(
      'hostedZoneId and hostedZoneName go together: the alias records need the zone and its name',
    );
  }
  if (hostedZoneId === undefined || hostedZoneName === undefined) {
    return { domainName, certificate, hostedZone: undefined };
  }
  if (!Token.isUnresolved(hostedZoneId) && !HOSTED_ZONE_ID.test(hostedZoneId)) {
    throw new InvalidWebhookReceiverPropsError(
      `hostedZoneId ${JSON.stringify(hostedZoneId)} is not a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ`,
    );
  }
  const zoneName = hostedZoneName.replace(/\.$/, '');
  if (
    !Token.isUnresolved(domainName) &&
    !Token.isUnresolved(zoneName) &&
    domainName !== zoneName &&
    !domainName.endsWith(`.${zoneName}`)
  ) {
    throw new InvalidWebhookReceiverPropsError(
      `domainName ${domainName} is not in hosted zone ${zoneName} (hostedZoneName)`,
    );
  }
  return { domainName, certificate, hostedZone: { hostedZoneId, zoneName } };
}

/** The ranges as the receiver's own parser reads them, so the stack deploys no list it refuses. */
function checkAllowedSourceIps(
  entries: readonly string[] | undefined,
): readonly string[] | undefined {
  if (entries === undefined) return undefined;
  const parsed = parseSourceAllowlist(entries);
  if (!parsed.ok) {
    throw new InvalidWebhookReceiverPropsError(
      parsed.entry === '' && entries.length === 0
        ? `allowedSourceIps ${parsed.problem}`
        : `allowedSourceIps entry ${JSON.stringify(parsed.entry)} ${parsed.problem}`,
    );
  }
  return parsed.allowlist.ranges;
}

/** Options that only one front door can honour are refused elsewhere rather than ignored. */
function checkIngressOptions(ingress: IngressKind, props: WebhookReceiverProps): void {
  if (props.webAclArn !== undefined) {
    if (ingress !== 'rest-api') {
      throw new InvalidWebhookReceiverPropsError(
        `webAclArn needs ingress rest-api (WAF associates with REST API stages), got ingress ${ingress}`,
      );
    }
    if (!Token.isUnresolved(props.webAclArn) && !WEB_ACL_ARN.test(props.webAclArn)) {
      throw new InvalidWebhookReceiverPropsError(
        `webAclArn ${JSON.stringify(props.webAclArn)} is not the ARN of a regional WAFv2 web ACL`,
      );
    }
  }
  if (ingress === 'function-url') {
    for (const name of ['throttleRateLimit', 'throttleBurstLimit'] as const) {
      if (props[name] !== undefined) {
        throw new InvalidWebhookReceiverPropsError(
          `${name} throttles an API stage; ingress function-url has none: use reservedConcurrency`,
        );
      }
    }
  }
}

/** The construct's queue props would shape queues it does not create: refused, not ignored. */
function checkExistingQueueOptions(props: WebhookReceiverProps): void {
  if (props.existingQueue === undefined) return;
  for (const name of ['queueProps', 'deadLetterQueueProps'] as const) {
    if (props[name] !== undefined) {
      throw new InvalidWebhookReceiverPropsError(
        `${name} cannot be used with existingQueue: the construct creates no queue to apply them to; configure your queue where it is defined`,
      );
    }
  }
}

/**
 * `queueProps` and `deadLetterQueueProps` shape what the props leave open; a value in them that
 * contradicts a prop would either lose silently or make a stack that fails at deploy: refused.
 */
function checkQueuePropsAgainstProps(props: WebhookReceiverProps, fifo: boolean): void {
  // The construct makes both queues of the type `fifo` says; one of another type would get a
  // redrive policy SQS refuses ("Source queue type ... does not match destination queue type").
  for (const name of ['queueProps', 'deadLetterQueueProps'] as const) {
    const given = props[name]?.fifo;
    if (given !== undefined && given !== fifo) {
      throw new InvalidWebhookReceiverPropsError(
        `${name}.fifo is ${given} but fifo is ${fifo}${props.fifo === undefined ? ' (the default)' : ''}: the queue and its dead-letter queue must be of one type; set fifo alone`,
      );
    }
  }
  if (props.queueProps?.deadLetterQueue !== undefined) {
    throw new InvalidWebhookReceiverPropsError(
      'queueProps.deadLetterQueue cannot be used: the construct creates the dead-letter queue that its alarm, its deadLetterQueue and the redrive tool use; shape it with deadLetterQueueProps',
    );
  }
  const visibilityTimeout = props.queueProps?.visibilityTimeout;
  if (
    props.consumer &&
    visibilityTimeout !== undefined &&
    !visibilityTimeout.isUnresolved() &&
    visibilityTimeout.toSeconds() < CONSUMER_TIMEOUT_SECONDS
  ) {
    throw new InvalidWebhookReceiverPropsError(
      `queueProps.visibilityTimeout of ${visibilityTimeout.toSeconds()} s is shorter than the example consumer's timeout (${CONSUMER_TIMEOUT_SECONDS} s): Lambda refuses its event source mapping at deploy; leave it out for the construct's (six consumer timeouts plus the batching window)`,
    );
  }
}

/**
 * A setting given both as a prop and in `receiverFunctionProps` has no answer to which one wins:
 * refused, not silently overridden.
 */
function checkReceiverFunctionOverrides(props: WebhookReceiverProps): void {
  const overrides = props.receiverFunctionProps;
  if (overrides === undefined) return;
  const clashes = [
    ['receiverMemorySize', props.receiverMemorySize, ['memorySize']],
    [
      'systemLogLevel',
      props.systemLogLevel,
      ['systemLogLevelV2', 'systemLogLevel', 'loggingFormat'],
    ],
    ['reservedConcurrency', props.reservedConcurrency, ['reservedConcurrentExecutions']],
    ['tracing', props.tracing, ['tracing']],
  ] as const;
  for (const [prop, value, keys] of clashes) {
    const key = keys.find((name) => overrides[name] !== undefined);
    if (value !== undefined && key !== undefined) {
      throw new InvalidWebhookReceiverPropsError(
        `${prop} cannot be used with receiverFunctionProps.${key}: give the receiver's setting once`,
      );
    }
  }
}

/** The idempotency table serves the example consumer only; without it the props would do nothing. */
function checkIdempotencyOptions(props: WebhookReceiverProps): void {
  if (props.idempotency && !props.consumer) {
    throw new InvalidWebhookReceiverPropsError(
      'idempotency needs consumer: true: the table records what the example consumer processed; a consumer of your own can use Powertools Idempotency with a table of its own',
    );
  }
  if (props.idempotencyTableRemovalPolicy !== undefined && !props.idempotency) {
    throw new InvalidWebhookReceiverPropsError(
      'idempotencyTableRemovalPolicy needs idempotency: true: without it there is no table',
    );
  }
  if (props.idempotencyTtl !== undefined && !props.idempotency) {
    throw new InvalidWebhookReceiverPropsError(
      'idempotencyTtl needs idempotency: true: without the table no record expires',
    );
  }
}

function checkJsonField(name: string, value: string | undefined): void {
  if (value !== undefined && value.trim() === '') {
    throw new InvalidWebhookReceiverPropsError(`${name} must not be empty`);
  }
}

/**
 * Names are checked as the receiver checks `ENDPOINT_SECRET_IDS`, and must stay distinct in
 * PascalCase too (`a-1` and `a1` are both `A1`), since the outputs and ids derive from that.
 */
function checkEndpoints(props: WebhookReceiverProps): readonly WebhookEndpoint[] {
  const endpoints = props.endpoints ?? [];
  if (props.endpoints === undefined) {
    return endpoints;
  }
  if (props.secret !== undefined) {
    throw new InvalidWebhookReceiverPropsError(
      "secret cannot be used with endpoints: give each endpoint's secret in its entry of endpoints",
    );
  }
  if (endpoints.length === 0) {
    throw new InvalidWebhookReceiverPropsError(
      'endpoints must name at least one endpoint (leave it out for the single endpoint POST /webhook)',
    );
  }
  const bySuffix = new Map<string, string>();
  for (const { name, secretJsonField } of endpoints) {
    // The receiver's own rule: a name the construct accepts is one the receiver routes.
    if (!isEndpointName(name)) {
      throw new InvalidWebhookReceiverPropsError(
        `endpoint name ${JSON.stringify(name)} is not ${ENDPOINT_NAME_RULE}`,
      );
    }
    const suffix = endpointIdSuffix(name);
    const other = bySuffix.get(suffix);
    if (other !== undefined) {
      throw new InvalidWebhookReceiverPropsError(
        other === name
          ? `endpoint name ${JSON.stringify(name)} is given twice`
          : `endpoint names ${JSON.stringify(other)} and ${JSON.stringify(name)} are both ${suffix} in PascalCase (outputs WebhookUrl${suffix}): rename one`,
      );
    }
    bySuffix.set(suffix, name);
    checkJsonField(`secretJsonField of endpoint ${JSON.stringify(name)}`, secretJsonField);
  }
  return endpoints;
}

function checkEvents(forwardEvents: readonly string[]): readonly string[] {
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
  return forwardEvents;
}

/** Checks an integer in [min, max]; tokens (e.g. CloudFormation parameters) are left to deploy time. */
function checkInteger(
  name: string,
  value: number,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number {
  if (!Token.isUnresolved(value) && !(Number.isInteger(value) && value >= min && value <= max)) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new InvalidWebhookReceiverPropsError(`${name} must be an integer ${range}, got ${value}`);
  }
  return value;
}

function optionalInteger(name: string, value: number | undefined, min: number) {
  return value === undefined ? undefined : checkInteger(name, value, min);
}

function checkPositive(name: string, value: number): number {
  if (!Token.isUnresolved(value) && !(Number.isFinite(value) && value > 0)) {
    throw new InvalidWebhookReceiverPropsError(`${name} must be a number above 0, got ${value}`);
  }
  return value;
}

/**
 * The receiver's whole-number settings ({@link RECEIVER_SETTINGS}): each prop, or its default,
 * checked against the range the Lambda checks at cold start, with the same message.
 */
function receiverSettingValues(
  props: WebhookReceiverProps,
): Record<WholeNumberSettingProp, number> {
  const entries = Object.values(RECEIVER_SETTINGS).map((setting) => {
    const given = props[setting.prop];
    if (given === undefined) return [setting.prop, setting.default] as const;
    const checked = checkWholeNumber(setting, given);
    if (!checked.ok) throw new InvalidWebhookReceiverPropsError(checked.message);
    return [setting.prop, checked.value] as const;
  });
  return Object.fromEntries(entries) as Record<WholeNumberSettingProp, number>;
}
