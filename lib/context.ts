import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Node } from 'constructs';
import {
  DEFAULT_STACK_NAME,
  ENDPOINT_CONTEXT_PROPS,
  endpointContextKey,
  parseEndpointContextKey,
  splitList,
} from '../lambda/contract/endpoints.js';
import {
  checkWholeNumber,
  RECEIVER_SETTINGS,
  type WholeNumberSettingProp,
} from '../lambda/contract/settings.js';
import { InvalidConfigurationError } from './configuration-error.js';
import type { ReceiverStackEndpoint, ReceiverStackProps } from './receiver-stack.js';
import { INGRESS_KINDS, type IngressKind } from './webhook-receiver-props.js';

/** Thrown when a CDK context value (`-c key=value` or `cdk.json`) cannot be used. */
export class InvalidContextError extends InvalidConfigurationError {}

/** The stack to deploy, as chosen by CDK context. */
export interface ReceiverContext {
  /** CloudFormation stack name (context `stackName`). */
  readonly stackName: string;
  /** The stack's options, from the other context keys; absent keys keep the stack's defaults. */
  readonly props: ReceiverStackProps;
}

/** CloudFormation's rule for stack names. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

/**
 * Reads the receiver's options from CDK context. Values given with `-c key=value` arrive as text,
 * values from `cdk.json` may be JSON booleans, numbers or arrays; both are accepted. An empty text
 * counts as not set, so `cdk.json` can list a key without choosing a value.
 * @throws InvalidContextError naming the key when a value has the wrong form
 */
export function readReceiverContext(node: Node): ReceiverContext {
  const get = (key: string): unknown => {
    const value: unknown = node.tryGetContext(key);
    return value === '' ? undefined : value;
  };
  const stackName = readString('stackName', get('stackName')) ?? DEFAULT_STACK_NAME;
  if (!STACK_NAME.test(stackName)) {
    throw new InvalidContextError(
      `context stackName ${JSON.stringify(stackName)} is not a CloudFormation stack name: start with a letter, then letters, digits or '-', at most 128 characters`,
    );
  }
  const props: ReceiverStackProps = {
    ...optional('ingress', readIngress(get('ingress'))),
    ...optional('webAclArn', readString('webAclArn', get('webAclArn'))),
    ...optional('domainName', readString('domainName', get('domainName'))),
    ...optional('certificateArn', readString('certificateArn', get('certificateArn'))),
    ...optional('hostedZoneId', readString('hostedZoneId', get('hostedZoneId'))),
    ...optional('hostedZoneName', readString('hostedZoneName', get('hostedZoneName'))),
    ...optional(
      'disableDefaultEndpoint',
      readBoolean('disableDefaultEndpoint', get('disableDefaultEndpoint')),
    ),
    ...optional('allowedSourceIps', readList('allowedSourceIps', get('allowedSourceIps'))),
    ...optional(
      'reservedConcurrency',
      readNumber('reservedConcurrency', get('reservedConcurrency')),
    ),
    ...optional('secretArn', readString('secretArn', get('secretArn'))),
    ...optional('secretKmsKeyArn', readString('secretKmsKeyArn', get('secretKmsKeyArn'))),
    ...optional('secretJsonField', readString('secretJsonField', get('secretJsonField'))),
    ...optional('fifo', readBoolean('fifo', get('fifo'))),
    ...readReceiverSettings(get),
    ...optional('forwardEvents', readList('forwardEvents', get('forwardEvents'))),
    ...optional('throttleRateLimit', readNumber('throttleRateLimit', get('throttleRateLimit'))),
    ...optional('throttleBurstLimit', readNumber('throttleBurstLimit', get('throttleBurstLimit'))),
    ...optional('alarmEmail', readString('alarmEmail', get('alarmEmail'))),
    ...optional(
      'silenceAlarmMinutes',
      readNumber('silenceAlarmMinutes', get('silenceAlarmMinutes')),
    ),
    ...optional('dashboard', readBoolean('dashboard', get('dashboard'))),
    ...optional(
      'apiGatewayCloudWatchRole',
      readBoolean('apiGatewayCloudWatchRole', get('apiGatewayCloudWatchRole')),
    ),
    ...optional('consumer', readBoolean('consumer', get('consumer'))),
    ...optional('idempotency', readBoolean('idempotency', get('idempotency'))),
    ...optional('tracing', readBoolean('tracing', get('tracing'))),
    ...optional('archive', readBoolean('archive', get('archive'))),
    ...optional('archiveDays', readNumber('archiveDays', get('archiveDays'))),
    ...optional('archiveKmsKeyArn', readString('archiveKmsKeyArn', get('archiveKmsKeyArn'))),
    ...optional('receiverMemorySize', readNumber('receiverMemorySize', get('receiverMemorySize'))),
    ...optional('systemLogLevel', readSystemLogLevel(get('systemLogLevel'))),
    ...optional('endpoints', readEndpoints(node, get)),
  };
  return { stackName, props };
}

/**
 * `endpoints` (names, as a list) with each endpoint's `secretArn.<name>` and
 * `secretKmsKeyArn.<name>`. A key naming no endpoint is refused: a typo would otherwise deploy a
 * placeholder in place of the key, or leave the secret's KMS key out of the role's policy.
 */
function readEndpoints(
  node: Node,
  get: (key: string) => unknown,
): ReceiverStackEndpoint[] | undefined {
  const names = readList('endpoints', get('endpoints'));
  const stray = Object.keys(node.getAllContext()).find((key) => {
    const named = parseEndpointContextKey(key);
    return named !== undefined && get(key) !== undefined && !names?.includes(named.name);
  });
  if (stray !== undefined) {
    throw new InvalidContextError(
      `context ${stray} names no endpoint of context endpoints (${names?.join(',') ?? 'not set'})`,
    );
  }
  return names?.map((name) =>
    Object.assign(
      { name },
      ...ENDPOINT_CONTEXT_PROPS.map((prop) => {
        const key = endpointContextKey(prop, name);
        return optional(prop, readString(key, get(key)));
      }),
    ),
  );
}

/** `{ [key]: value }` when there is a value, `{}` otherwise (optional props must be absent, not undefined). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function readIngress(value: unknown): IngressKind | undefined {
  const ingress = readString('ingress', value);
  if (ingress === undefined || (INGRESS_KINDS as readonly string[]).includes(ingress)) {
    return ingress as IngressKind | undefined;
  }
  throw new InvalidContextError(
    `context ingress must be one of ${INGRESS_KINDS.join(', ')}, got ${JSON.stringify(ingress)}`,
  );
}

/** Lambda's system log levels, as the context names them (`-c systemLogLevel=INFO`). */
const SYSTEM_LOG_LEVELS: readonly string[] = Object.values(lambda.SystemLogLevel);

function readSystemLogLevel(value: unknown): lambda.SystemLogLevel | undefined {
  const level = readString('systemLogLevel', value);
  if (level === undefined || SYSTEM_LOG_LEVELS.includes(level)) {
    return level as lambda.SystemLogLevel | undefined;
  }
  throw new InvalidContextError(
    `context systemLogLevel must be one of ${SYSTEM_LOG_LEVELS.join(', ')}, got ${JSON.stringify(level)}`,
  );
}

function readString(key: string, value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') {
    return value;
  }
  throw new InvalidContextError(`context ${key} must be text, got ${JSON.stringify(value)}`);
}

function readBoolean(key: string, value: unknown): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') {
    return value;
  }
  if (value === 'true' || value === 'false') {
    return value === 'true';
  }
  throw new InvalidContextError(
    `context ${key} must be true or false, got ${JSON.stringify(value)}`,
  );
}

function readNumber(key: string, value: unknown): number | undefined {
  if (value === undefined || (typeof value === 'number' && Number.isFinite(value))) {
    return value;
  }
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) {
    return Number(value);
  }
  throw new InvalidContextError(`context ${key} must be a number, got ${JSON.stringify(value)}`);
}

/** A comma-separated text (`-c forwardEvents=a,b`) or a JSON array of texts (`cdk.json`). */
function readList(key: string, value: unknown): string[] | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value === 'string') {
    return splitList(value);
  }
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return value;
  }
  throw new InvalidContextError(
    `context ${key} must be a comma-separated list or an array of texts, got ${JSON.stringify(value)}`,
  );
}

/**
 * The receiver's whole-number settings ({@link RECEIVER_SETTINGS}) given as context, each checked
 * with the range and message the construct and the Lambda use.
 */
function readReceiverSettings(
  get: (key: string) => unknown,
): Partial<Record<WholeNumberSettingProp, number>> {
  const entries = Object.values(RECEIVER_SETTINGS).flatMap((setting) => {
    const given = get(setting.prop);
    if (given === undefined) return [];
    const checked =
      typeof given === 'number' || typeof given === 'string'
        ? checkWholeNumber(setting, given)
        : checkWholeNumber(setting, JSON.stringify(given));
    if (!checked.ok) throw new InvalidContextError(`context ${checked.message}`);
    return [[setting.prop, checked.value] as const];
  });
  return Object.fromEntries(entries);
}
