/**
 * The construct's checks that involve more than one prop, or a prop that is a construct (a key, a
 * certificate, a secret): what the settings table's rows cannot say alone. Each refuses a
 * combination that would deploy something that does not work, naming the props.
 * @module
 */
import { Token } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import {
  ENDPOINT_NAME_RULE,
  endpointIdSuffix,
  isEndpointName,
} from '../lambda/contract/endpoints.js';
import { CONSUMER_TIMEOUT_SECONDS } from '../lambda/contract/queue-settings.js';
import { KMS_KEY_ARN } from '../lambda/contract/setting-rules.js';
import { SETTINGS } from '../lambda/contract/settings.js';
import { InvalidWebhookReceiverPropsError } from './configuration-error.js';
import type { WebhookEndpoint } from './endpoints.js';
import { checkArnRegion, checkedValue } from './setting-checks.js';
import type { IngressKind, WebhookReceiverProps } from './webhook-receiver-props.js';

/** The front doors that can serve a custom domain (`domainName`): API Gateway's. */
export const INGRESS_WITH_CUSTOM_DOMAIN: readonly IngressKind[] = ['http-api', 'rest-api'];

/** The user's own domain in front of the API, from `domainName`, `certificate` and the hosted zone. */
export interface CustomDomainSettings {
  readonly domainName: string;
  readonly certificate: acm.ICertificate;
  /** Where to create the alias records (A and AAAA); none without `hostedZoneId`. */
  readonly hostedZone: { readonly hostedZoneId: string; readonly zoneName: string } | undefined;
}

/**
 * `archiveDays` and `archiveEncryptionKey` need `archive`: a retention or a key for no archive is
 * a mistake.
 */
export function checkArchiveOptions(scope: Construct, props: WebhookReceiverProps): void {
  for (const prop of ['archiveDays', 'archiveEncryptionKey'] as const) {
    if (props[prop] !== undefined && !props.archive) {
      throw new InvalidWebhookReceiverPropsError(`${prop} needs archive: true`);
    }
  }
  if (props.archiveEncryptionKey !== undefined) checkArchiveKey(scope, props.archiveEncryptionKey);
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
  checkArnRegion(
    scope,
    SETTINGS.archiveKmsKeyArn,
    key.keyArn,
    InvalidWebhookReceiverPropsError,
    'archiveEncryptionKey',
  );
}

/**
 * `domainName` with its `certificate`, and the hosted zone (`hostedZoneId` with
 * `hostedZoneName`) when given; `disableDefaultEndpoint` needs the domain, which is then the only
 * way in.
 */
export function checkCustomDomain(
  scope: Construct,
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
  if (certificate === undefined) {
    throw new InvalidWebhookReceiverPropsError(
      `domainName needs certificate: an ACM certificate for ${domainName} in the stack's region`,
    );
  }
  checkArnRegion(
    scope,
    SETTINGS.certificateArn,
    certificate.certificateArn,
    InvalidWebhookReceiverPropsError,
    'certificate',
  );
  if ((hostedZoneId === undefined) !== (hostedZoneName === undefined)) {
    throw new InvalidWebhookReceiverPropsError(
      'hostedZoneId and hostedZoneName go together: the alias records need the zone and its name',
    );
  }
  if (hostedZoneId === undefined || hostedZoneName === undefined) {
    return { domainName, certificate, hostedZone: undefined };
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

/** Options that only one front door can honour are refused elsewhere rather than ignored. */
export function checkIngressOptions(
  scope: Construct,
  ingress: IngressKind,
  props: WebhookReceiverProps,
): void {
  if (props.webAclArn !== undefined) {
    if (ingress !== 'rest-api') {
      throw new InvalidWebhookReceiverPropsError(
        `webAclArn needs ingress rest-api (WAF associates with REST API stages), got ingress ${ingress}`,
      );
    }
    checkArnRegion(scope, SETTINGS.webAclArn, props.webAclArn, InvalidWebhookReceiverPropsError);
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
export function checkExistingQueueOptions(props: WebhookReceiverProps): void {
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
export function checkQueuePropsAgainstProps(props: WebhookReceiverProps, fifo: boolean): void {
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
export function checkReceiverFunctionOverrides(props: WebhookReceiverProps): void {
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
export function checkIdempotencyOptions(props: WebhookReceiverProps): void {
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

/**
 * Names are checked as the receiver checks `ENDPOINT_SECRET_IDS`, and must stay distinct in
 * PascalCase too (`a-1` and `a1` are both `A1`), since the outputs and ids derive from that.
 */
export function checkEndpoints(
  scope: Construct,
  props: WebhookReceiverProps,
): readonly WebhookEndpoint[] {
  const endpoints = props.endpoints ?? [];
  if (props.secret !== undefined) checkSecretRegion(scope, props.secret, 'secret');
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
  for (const { name, secret, secretJsonField } of endpoints) {
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
    const of = `of endpoint ${JSON.stringify(name)}`;
    if (secret !== undefined) checkSecretRegion(scope, secret, `secret ${of}`);
    if (secretJsonField !== undefined) {
      const row = SETTINGS.secretJsonField;
      checkedValue(row, secretJsonField, InvalidWebhookReceiverPropsError, `secretJsonField ${of}`);
    }
  }
  return endpoints;
}

/** A secret, and the key encrypting it when given, in the stack's region. */
function checkSecretRegion(scope: Construct, secret: secretsmanager.ISecret, name: string): void {
  const error = InvalidWebhookReceiverPropsError;
  checkArnRegion(scope, SETTINGS.secretArn, secret.secretArn, error, name);
  const key = secret.encryptionKey;
  if (key !== undefined) {
    checkArnRegion(scope, SETTINGS.secretKmsKeyArn, key.keyArn, error, `the key of ${name}`);
  }
}
