/**
 * The receiver's contract with everything around it: what an endpoint name is, how a list of
 * settings is written, and what a name becomes in each place it appears (the path senders POST
 * to, the stack's outputs, the CDK context key of its secret, the local run's key variable).
 * The construct, the Lambda, `npm start` and the tools import these instead of re-deriving them,
 * so a rule changes in one place. Pure: no AWS, no I/O.
 * @module
 */

/** The path segment every front door routes to the receiver: `/webhook`, `/webhook/<name>`. */
export const WEBHOOK_ROUTE = 'webhook';

/**
 * The path senders POST to: `/webhook`, or `/webhook/<name>` for a named endpoint.
 *
 * @param name - the endpoint's name; absent for the single endpoint
 */
export function webhookPath(name?: string): string {
  return name === undefined ? `/${WEBHOOK_ROUTE}` : `/${WEBHOOK_ROUTE}/${name}`;
}

/** The longest endpoint name: it prefixes FIFO group and deduplication ids, so it stays short. */
export const MAX_ENDPOINT_NAME_LENGTH = 32;

/** What an endpoint name may be, as every refusal of one says it. */
export const ENDPOINT_NAME_RULE = `1 to ${MAX_ENDPOINT_NAME_LENGTH} characters of lowercase letters, digits and -`;

const ENDPOINT_NAME = new RegExp(`^[a-z0-9-]{1,${MAX_ENDPOINT_NAME_LENGTH}}$`);

/**
 * Whether `name` is a valid endpoint name ({@link ENDPOINT_NAME_RULE}): it is the last segment
 * of the endpoint's path, the `endpoint` attribute of its messages and a prefix of their FIFO
 * ids, so it stays short and never needs URL encoding.
 *
 * @param name - the candidate name
 */
export function isEndpointName(name: string): boolean {
  return ENDPOINT_NAME.test(name);
}

/**
 * Splits a comma-separated setting (`ENDPOINTS`, `FORWARD_EVENTS`, `ALLOWED_SOURCE_IPS`, a context
 * list given on the command line) into its entries, trimmed. Every list is written this way and
 * read by this function: an empty entry (`a,,b`, a trailing comma) stays, for the setting's own
 * check to refuse by name, so no list silently drops part of what was written.
 *
 * @param text - the setting's value
 */
export function splitList(text: string): string[] {
  return text.split(',').map((entry) => entry.trim());
}

/**
 * The endpoint's name in PascalCase without hyphens (`eu-west` -> `EuWest`): the suffix of its
 * stack outputs and construct ids.
 *
 * @param name - a valid endpoint name
 */
export function endpointIdSuffix(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** The stack name of `cdk deploy` when context `stackName` is not set, and the tools' default. */
export const DEFAULT_STACK_NAME = 'WebhookReceiver';

/** The outputs of the receiver's stack that the tools read, by what they hold. */
export const STACK_OUTPUTS = {
  /** The URL to register with the booking service (with endpoints: one per endpoint). */
  webhookUrl: 'WebhookUrl',
  /** The ARN of the secret holding the signing key (with endpoints: one per endpoint). */
  secretArn: 'SecretArn',
  /** The queue verified events are forwarded to. */
  queueUrl: 'QueueUrl',
  /** The dead-letter queue, when the stack created the queue. */
  deadLetterQueueUrl: 'DeadLetterQueueUrl',
  /** The bucket of archived calls, when the stack keeps an archive (`archive`). */
  archiveBucketName: 'ArchiveBucketName',
  /**
   * With more endpoints than outputs: the URL every endpoint's URL starts with
   * (`<prefix>/<name>`), in place of the `WebhookUrl<Name>` outputs.
   */
  endpointUrlPrefix: 'EndpointUrlPrefix',
  /**
   * With more endpoints than outputs: the ARN of the endpoint directory, the secret listing each
   * endpoint's secret ARN, in place of the `SecretArn<Name>` outputs.
   */
  endpointDirectoryArn: 'EndpointDirectoryArn',
  /** The example consumer's log group, when the stack deploys it: where `smoke` sees a booking. */
  consumerLogGroupName: 'ConsumerLogGroupName',
} as const;

/**
 * The stack output holding one of a named endpoint's values: the output's name for the single
 * endpoint followed by {@link endpointIdSuffix} (`SecretArn` + `eu-west` -> `SecretArnEuWest`).
 *
 * @param output - `WebhookUrl` or `SecretArn`
 * @param name - a valid endpoint name
 */
export function endpointOutputKey(
  output: typeof STACK_OUTPUTS.webhookUrl | typeof STACK_OUTPUTS.secretArn,
  name: string,
): string {
  return `${output}${endpointIdSuffix(name)}`;
}

/**
 * The CDK context keys set per endpoint, each also a key of the single endpoint: `secretArn.<name>`
 * imports the endpoint's secret, `secretKmsKeyArn.<name>` names the customer managed KMS key that
 * encrypts it.
 */
export const ENDPOINT_CONTEXT_PROPS = ['secretArn', 'secretKmsKeyArn'] as const;

/** Between a per-endpoint context key's setting and its endpoint name, which has no dot. */
const ENDPOINT_CONTEXT_SEPARATOR = '.';

/** One of {@link ENDPOINT_CONTEXT_PROPS}. */
export type EndpointContextProp = (typeof ENDPOINT_CONTEXT_PROPS)[number];

/**
 * The CDK context key of setting `prop` for endpoint `name`: `<prop>.<name>`
 * (`secretArn.eu-west`).
 *
 * @param prop - the setting, as the single endpoint's context key
 * @param name - a valid endpoint name
 */
export function endpointContextKey(prop: EndpointContextProp, name: string): string {
  return `${prop}${ENDPOINT_CONTEXT_SEPARATOR}${name}`;
}

/**
 * The setting and endpoint a per-endpoint context key names (`secretArn.eu` -> `secretArn`, `eu`),
 * or `undefined` for any other key, so a key naming no endpoint can be refused by name.
 *
 * @param key - a CDK context key
 */
export function parseEndpointContextKey(
  key: string,
): { readonly prop: EndpointContextProp; readonly name: string } | undefined {
  const at = key.indexOf(ENDPOINT_CONTEXT_SEPARATOR);
  const prop = ENDPOINT_CONTEXT_PROPS.find((candidate) => candidate === key.slice(0, at));
  return at < 0 || prop === undefined ? undefined : { prop, name: key.slice(at + 1) };
}

/** The local run's variable holding the single endpoint's key. */
export const LOCAL_KEY_VARIABLE = 'WEBHOOK_SECRET';

/**
 * The local run's variable holding endpoint `name`'s key: `WEBHOOK_SECRET_` and the name
 * upper-cased with `-` as `_` (`eu-west` -> `WEBHOOK_SECRET_EU_WEST`). Names have no `_`, so no two
 * share one.
 *
 * @param name - a valid endpoint name
 */
export function endpointKeyVariable(name: string): string {
  return `${LOCAL_KEY_VARIABLE}_${name.toUpperCase().replaceAll('-', '_')}`;
}
