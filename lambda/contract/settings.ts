/**
 * The settings table: every construct prop that has a CDK context key or an environment variable,
 * one row each (prop, context key, variable, kind, default, check, summary). The context reader,
 * the construct's checks, the functions' environment, the functions' configuration, `npm start`
 * and the configuration reference (`docs/configuration-reference.md`) loop over it, so a value is
 * refused everywhere with the same rule and the same message. Adding a setting is a row here and
 * the code that uses its value. Pure: no AWS, no I/O.
 * @module
 */
import { DEFAULT_TOLERANCE_SECONDS } from '../core/verify-signature.js';
import { DEFAULT_ARCHIVE_DAYS, MAX_ARCHIVE_DAYS } from './archive-layout.js';
import { STAGE_THROTTLE_DEFAULTS } from './capacity-settings.js';
import { ENDPOINT_NAME_RULE } from './endpoints.js';
import {
  ALLOWED_SOURCE_IPS,
  CONFIG_DEFAULTS,
  CONSUMER_CONFIG_DEFAULTS,
  VARIABLES,
} from './environment.js';
import type { SettingRow } from './setting-kinds.js';
import {
  endpointNamesRule,
  forwardEventsRule,
  KMS_KEY,
  SECRET_ARN,
  sourceAllowlistRule,
} from './setting-rules.js';

/**
 * Largest body the receiver accepts. SQS takes at most 1 MiB per message, counting the body and
 * every attribute's name, type and value. The body goes to the queue unchanged, with attributes
 * that copy the payload's `event`, `event_at` and `source` (so together never longer than the
 * body) plus `signature_timestamp`, `dedup_key` and `endpoint` (under 200 bytes with all names and
 * types). A body of at most this many bytes always fits, however a signed payload spreads its text
 * over those fields; above it a large signed call could fail SendMessage on every retry, a 503 the
 * sender can never get past.
 */
export const MAX_BODY_BYTES_LIMIT = 512_000;

/**
 * The receiver function's timeout, in seconds. The receiver gives a key load and a send 5 s each
 * before it answers 503 with Retry-After; 15 s lets those deadlines end first (a Lambda timeout
 * would reach the sender as an unexplained 502) and still ends before API Gateway's 29 s limit.
 * It is also the longest a call's archive write can come after its receipt time, which the replay
 * allows for when it lists a window.
 */
export const RECEIVER_TIMEOUT_SECONDS = 15;

/** Lambda's system log levels, as the construct's `systemLogLevel` and the context name them. */
export const SYSTEM_LOG_LEVELS = ['INFO', 'DEBUG', 'WARN'] as const;

/** The front doors a construct's `ingress` can name. */
export const INGRESS_KINDS = ['http-api', 'rest-api', 'function-url'] as const;

/** The settings, by prop. */
export const SETTINGS = {
  signatureToleranceSeconds: {
    kind: 'whole-number',
    prop: 'signatureToleranceSeconds',
    variable: 'SIGNATURE_TOLERANCE_SECONDS',
    default: DEFAULT_TOLERANCE_SECONDS,
    minimum: 1,
    // A wider window widens the window in which a captured call can be replayed.
    maximum: 3600,
    unit: 'seconds',
    summary:
      "How far a call's signature timestamp `t` may be from the receiver's clock, either way.",
  },
  previousKeyGraceSeconds: {
    kind: 'whole-number',
    prop: 'previousKeyGraceSeconds',
    variable: 'PREVIOUS_KEY_GRACE_SECONDS',
    default: 86_400,
    minimum: 0,
    unit: 'seconds',
    summary:
      'How long after a rotation the previous key (`AWSPREVIOUS`) still verifies calls signed before the switch; 0 turns it off.',
  },
  secretCacheSeconds: {
    kind: 'whole-number',
    prop: 'secretCacheSeconds',
    variable: 'SECRET_CACHE_SECONDS',
    // A rotation does not wait for it (a call no cached key verifies reloads the keys, at most
    // every 30 s), so it can be long; docs/performance.md prices it.
    default: 3600,
    minimum: 0,
    unit: 'seconds',
    summary:
      'How long a warm receiver keeps the keys it loaded before asking Secrets Manager again; a call no key verifies reloads them sooner (at most every 30 s), so a rotation does not wait for it.',
  },
  maxBodyBytes: {
    kind: 'whole-number',
    prop: 'maxBodyBytes',
    variable: 'MAX_BODY_BYTES',
    default: 262_144,
    minimum: 1,
    maximum: MAX_BODY_BYTES_LIMIT,
    unit: 'bytes',
    summary:
      'The largest body accepted; a larger one is answered 413 before its signature is checked.',
  },
  forwardEvents: {
    kind: 'list',
    prop: 'forwardEvents',
    variable: 'FORWARD_EVENTS',
    default: [CONFIG_DEFAULTS.FORWARD_EVENTS],
    rule: forwardEventsRule,
    entries: 'event types (letters, digits, `_`, `.`, `:`, `-`), or `*` alone',
    summary:
      'Event types forwarded to the queue; other verified events are acknowledged and dropped. `*` alone forwards every verified event.',
  },
  allowedSourceIps: {
    kind: 'list',
    prop: 'allowedSourceIps',
    variable: ALLOWED_SOURCE_IPS,
    defaultText: 'every source',
    emptyRefused: true,
    rule: sourceAllowlistRule,
    entries: 'IPv4 or IPv6 CIDRs or addresses, at least one',
    summary:
      'The only source addresses let in, IPv4 and IPv6 CIDRs (a bare address is one address); others get 403 `source_not_allowed` (with `rest-api`, API Gateway refuses them). An empty list is refused: leave the setting out to let every source in.',
  },
  secretJsonField: {
    kind: 'text',
    prop: 'secretJsonField',
    variable: 'SECRET_JSON_FIELD',
    defaultText: "the JSON object's only text field",
    summary:
      'The field of a JSON `SecretString` holding the key, when the object has several text fields.',
  },
  serviceName: {
    kind: 'text',
    prop: 'serviceName',
    context: false,
    variable: VARIABLES.serviceName,
    default: CONFIG_DEFAULTS.POWERTOOLS_SERVICE_NAME,
    defaultText: "`webhook-receiver`; the construct's: `webhook-receiver-` and a hash of its path",
    summary: "The receiver's log `service` field and metric dimension, which its alarms watch.",
  },
  idempotencyTtl: {
    kind: 'duration',
    prop: 'idempotencyTtl',
    context: false,
    variable: 'IDEMPOTENCY_TTL_SECONDS',
    default: CONSUMER_CONFIG_DEFAULTS.IDEMPOTENCY_TTL_SECONDS,
    minimum: 1,
    summary:
      "How long the example consumer's record of a processed booking suppresses its copies (with `idempotency`).",
  },
  ingress: {
    kind: 'choice',
    prop: 'ingress',
    choices: INGRESS_KINDS,
    default: 'http-api',
    summary:
      'The front door: API Gateway HTTP API, REST API (the only one that takes a WAF web ACL) or a Lambda function URL.',
  },
  webAclArn: {
    kind: 'arn',
    prop: 'webAclArn',
    form: {
      pattern: /^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/[^/]+\/[^/]+$/,
      description: 'the ARN of a regional WAFv2 web ACL',
    },
    sameRegion: 'a regional web ACL protects a stage of its own region only',
    defaultText: 'none',
    summary: 'A regional WAFv2 web ACL for the REST API stage (`rest-api` only).',
  },
  domainName: {
    kind: 'text',
    prop: 'domainName',
    form: {
      // API Gateway takes no upper case or wildcard here.
      pattern:
        /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
      description: 'a lower-case DNS name such as hooks.example.com',
    },
    defaultText: 'the generated URL',
    summary: 'Your own domain for the webhook URL (`http-api` or `rest-api`); needs a certificate.',
  },
  certificateArn: {
    kind: 'arn',
    prop: 'certificateArn',
    form: {
      pattern: /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/,
      description: 'an ACM certificate ARN',
    },
    sameRegion: 'a regional custom domain takes a certificate of its own region only',
    defaultText: 'none',
    summary: "The ACM certificate of `domainName`, in the stack's region (the stack's prop).",
  },
  hostedZoneId: {
    kind: 'text',
    prop: 'hostedZoneId',
    form: {
      pattern: /^[A-Z0-9]{1,32}$/,
      description: 'a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ',
    },
    defaultText: 'no records',
    summary: 'The Route 53 zone in which to create the alias records of `domainName`.',
  },
  hostedZoneName: {
    kind: 'text',
    prop: 'hostedZoneName',
    defaultText: 'no records',
    summary: 'The name of the zone of `hostedZoneId`; `domainName` must be in it.',
  },
  disableDefaultEndpoint: {
    kind: 'boolean',
    prop: 'disableDefaultEndpoint',
    defaultText: 'true with `domainName`',
    summary: "Turn off the API's generated `execute-api` endpoint (only with `domainName`).",
  },
  reservedConcurrency: {
    kind: 'whole-number',
    prop: 'reservedConcurrency',
    minimum: 1,
    unit: 'environments',
    defaultText: 'none reserved',
    summary: 'Reserved concurrency of the receiver: the throttle of `function-url`.',
  },
  secretArn: {
    kind: 'arn',
    prop: 'secretArn',
    form: SECRET_ARN,
    sameRegion: 'the receiver reads its secrets through Secrets Manager in its own region',
    defaultText: 'a new secret with a placeholder',
    summary:
      "The secret holding the signing key (the stack's prop); per endpoint `secretArn.<name>`.",
  },
  secretKmsKeyArn: {
    kind: 'arn',
    prop: 'secretKmsKeyArn',
    form: KMS_KEY,
    sameRegion: "a secret's key must be in the secret's region",
    defaultText: 'the AWS managed key',
    summary:
      "The customer managed KMS key encrypting `secretArn`'s secret; per endpoint `secretKmsKeyArn.<name>`.",
  },
  endpoints: {
    kind: 'list',
    prop: 'endpoints',
    rule: endpointNamesRule,
    entries: `endpoint names: ${ENDPOINT_NAME_RULE}`,
    defaultText: 'one endpoint, `POST /webhook`',
    summary:
      'Named endpoints, one key each, served at `POST /webhook/<name>` (context: their names).',
  },
  fifo: {
    kind: 'boolean',
    prop: 'fifo',
    default: false,
    summary: 'Use FIFO queues: messages of one booking stay in order.',
  },
  throttleRateLimit: {
    kind: 'number',
    prop: 'throttleRateLimit',
    above: 0,
    default: STAGE_THROTTLE_DEFAULTS.rateLimit,
    unit: 'calls a second',
    summary: 'Steady rate the API stage passes per route; above it API Gateway answers 429.',
  },
  throttleBurstLimit: {
    kind: 'whole-number',
    prop: 'throttleBurstLimit',
    minimum: 1,
    default: STAGE_THROTTLE_DEFAULTS.burstLimit,
    unit: 'calls',
    summary: 'Calls the API stage passes at once above the steady rate.',
  },
  alarmEmail: {
    kind: 'text',
    prop: 'alarmEmail',
    form: { pattern: /^[^@\s]+@[^@\s]+\.[^@\s]+$/, description: 'an e-mail address' },
    defaultText: 'no topic',
    summary: 'An e-mail address every alarm notifies (through an SNS topic).',
  },
  silenceAlarmMinutes: {
    kind: 'whole-number',
    prop: 'silenceAlarmMinutes',
    minimum: 0,
    // The alarm's one period sums this long, and CloudWatch evaluates a period under an hour
    // over one day at most.
    maximum: 24 * 60,
    default: 60,
    unit: 'minutes',
    summary: 'Minutes without a verified delivery that raise the silence alarm; 0 for none.',
  },
  dashboard: {
    kind: 'boolean',
    prop: 'dashboard',
    default: true,
    summary: 'Create a CloudWatch dashboard of the receiver.',
  },
  apiGatewayCloudWatchRole: {
    kind: 'boolean',
    prop: 'apiGatewayCloudWatchRole',
    default: true,
    summary:
      "With `rest-api`: set the account's role API Gateway writes execution logs with; off when the account has one.",
  },
  consumer: {
    kind: 'boolean',
    prop: 'consumer',
    default: false,
    defaultText: "false; the stack's: true",
    summary: 'Deploy the example consumer on the queue.',
  },
  idempotency: {
    kind: 'boolean',
    prop: 'idempotency',
    default: false,
    defaultText: "false; the stack's: true with the consumer",
    summary: 'Have the example consumer process each booking once (a DynamoDB table).',
  },
  tracing: {
    kind: 'boolean',
    prop: 'tracing',
    default: false,
    summary: 'Active X-Ray tracing of both functions.',
  },
  archive: {
    kind: 'boolean',
    prop: 'archive',
    default: false,
    defaultText: "false; the stack's: true",
    summary: 'Archive every answered call in an encrypted bucket, for `npm run replay`.',
  },
  archiveDays: {
    kind: 'whole-number',
    prop: 'archiveDays',
    minimum: 1,
    maximum: MAX_ARCHIVE_DAYS,
    default: DEFAULT_ARCHIVE_DAYS,
    unit: 'days',
    summary: 'Days an archived call is kept (with `archive`).',
  },
  archiveKmsKeyArn: {
    kind: 'arn',
    prop: 'archiveKmsKeyArn',
    form: KMS_KEY,
    sameRegion: "an S3 bucket's key must be in the bucket's region",
    defaultText: 'S3-managed keys',
    summary:
      "A customer managed KMS key for the archive bucket, in the stack's region (the stack's prop).",
  },
  receiverMemorySize: {
    kind: 'whole-number',
    prop: 'receiverMemorySize',
    // Lambda's range of memory sizes.
    minimum: 128,
    maximum: 10_240,
    // The smallest multiple of 64 MB with half again the receiver's measured peak memory
    // (docs/performance.md).
    default: 192,
    unit: 'MB',
    summary: 'Memory of the receiver function.',
  },
  systemLogLevel: {
    kind: 'choice',
    prop: 'systemLogLevel',
    choices: SYSTEM_LOG_LEVELS,
    // WARN drops Lambda's START, END and REPORT lines; their figures stay metrics.
    default: 'WARN',
    summary: "Which of Lambda's own log lines both functions keep.",
  },
} as const satisfies Record<string, SettingRow>;

/** The props of the settings table. */
export type SettingProp = keyof typeof SETTINGS;

/**
 * The settings the construct writes into the receiver function's environment and the receiver
 * (and `npm start`) reads from it; `allowedSourceIps` only behind a front door that cannot refuse
 * other sources itself.
 */
export const RECEIVER_FUNCTION_SETTINGS = [
  'signatureToleranceSeconds',
  'previousKeyGraceSeconds',
  'secretCacheSeconds',
  'maxBodyBytes',
  'forwardEvents',
  'allowedSourceIps',
  'secretJsonField',
] as const satisfies readonly SettingProp[];
