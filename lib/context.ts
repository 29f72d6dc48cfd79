import type { Node } from 'constructs';
import {
  DEFAULT_STACK_NAME,
  ENDPOINT_CONTEXT_PROPS,
  endpointContextKey,
  parseEndpointContextKey,
} from '../lambda/contract/endpoints.js';
import {
  checkSetting,
  contextKeyOf,
  type SettingRow,
  settingName,
} from '../lambda/contract/setting-kinds.js';
import { SETTINGS } from '../lambda/contract/settings.js';
import { InvalidConfigurationError } from './configuration-error.js';
import type { ReceiverStackEndpoint, ReceiverStackProps } from './receiver-stack.js';

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
 * Reads the receiver's options from CDK context: every row of the settings table that has a
 * context key, checked with its row. Values given with `-c key=value` arrive as text, values from
 * `cdk.json` may be JSON booleans, numbers or arrays; both are accepted. An empty text counts as
 * not set, so `cdk.json` can list a key without choosing a value, except for a setting whose row
 * refuses an empty value (`-c allowedSourceIps=` would otherwise let every source in unnoticed).
 * @throws InvalidContextError naming the key when a value breaks its row's rule
 */
export function readReceiverContext(node: Node): ReceiverContext {
  const given = (key: string): unknown => node.tryGetContext(key);
  const stackName = readStackName(given('stackName'));
  const props: Record<string, unknown> = {};
  for (const row of Object.values(SETTINGS) as SettingRow[]) {
    const key = contextKeyOf(row);
    if (key === undefined) continue;
    const value = readContextValue(row, key, given(key));
    if (value !== undefined) props[row.prop] = value;
  }
  const names = props.endpoints as readonly string[] | undefined;
  const endpoints = readEndpoints(node, given, names);
  return {
    stackName,
    props: { ...props, ...(endpoints === undefined ? {} : { endpoints }) } as ReceiverStackProps,
  };
}

/**
 * One context value checked with its row, in the row's message prefixed `context`; `undefined`
 * when not set (an empty text too, unless the row refuses it).
 */
function readContextValue(row: SettingRow, key: string, value: unknown): unknown {
  if (value === undefined || (value === '' && row.emptyRefused !== true)) return undefined;
  const checked = checkSetting(row, value, `context ${settingName(row, key)}`);
  if (!checked.ok) throw new InvalidContextError(checked.message);
  return checked.value;
}

function readStackName(value: unknown): string {
  if (value === undefined || value === '') return DEFAULT_STACK_NAME;
  if (typeof value === 'string' && STACK_NAME.test(value)) return value;
  throw new InvalidContextError(
    `context stackName ${JSON.stringify(value)} is not a CloudFormation stack name: start with a letter, then letters, digits or '-', at most 128 characters`,
  );
}

/**
 * The endpoints named by context `endpoints`, with each one's `secretArn.<name>` and
 * `secretKmsKeyArn.<name>` (checked with the rows of `secretArn` and `secretKmsKeyArn`). A key
 * naming no endpoint is refused: a typo would otherwise deploy a placeholder in place of the key,
 * or leave the secret's KMS key out of the role's policy.
 */
function readEndpoints(
  node: Node,
  given: (key: string) => unknown,
  names: readonly string[] | undefined,
): ReceiverStackEndpoint[] | undefined {
  const stray = Object.keys(node.getAllContext()).find((key) => {
    const value = given(key);
    const named = parseEndpointContextKey(key);
    return (
      named !== undefined && value !== undefined && value !== '' && !names?.includes(named.name)
    );
  });
  if (stray !== undefined) {
    throw new InvalidContextError(
      `context ${stray} names no endpoint of context endpoints (${names?.join(',') ?? 'not set'})`,
    );
  }
  return names?.map((name) => {
    const endpoint: Record<string, string> = { name };
    for (const prop of ENDPOINT_CONTEXT_PROPS) {
      const key = endpointContextKey(prop, name);
      const value = readContextValue(SETTINGS[prop], key, given(key));
      if (value !== undefined) endpoint[prop] = value as string;
    }
    return endpoint as unknown as ReceiverStackEndpoint;
  });
}
