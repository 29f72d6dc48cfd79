/**
 * The CDK side of the settings table (`lambda/contract/settings.ts`): a prop's value checked with
 * its row where tokens may stand in for values, and an ARN's region checked against the stack's.
 * @module
 */
import { Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import {
  type ArnSetting,
  arnRegion,
  checkSetting,
  type SettingRow,
  type SettingValue,
} from '../lambda/contract/setting-kinds.js';
import type { InvalidConfigurationError } from './configuration-error.js';

/** The error a refused value raises: the construct's, the stack's or the context's. */
export type ConfigurationErrorClass = new (message: string) => InvalidConfigurationError;

/** Whether a value is, or holds, a token: a CloudFormation parameter, another resource's attribute. */
function isUnresolved(value: unknown): boolean {
  return Array.isArray(value)
    ? Token.isUnresolved(value) || value.some((entry) => Token.isUnresolved(entry))
    : Token.isUnresolved(value);
}

/**
 * A prop's value checked with its row, in the row's one message form; a token is left to deploy
 * time as it is.
 *
 * @param row - the setting's row
 * @param given - the prop's value, defined
 * @param error - the error class to raise
 * @param name - the setting's name in the message, the row's by default
 * @throws the given error class when the value breaks the row's rule
 */
export function checkedValue<Row extends SettingRow>(
  row: Row,
  given: unknown,
  error: ConfigurationErrorClass,
  name?: string,
): SettingValue<Row> {
  if (isUnresolved(given)) return given as SettingValue<Row>;
  const checked = checkSetting(row, given, name);
  if (!checked.ok) throw new error(checked.message);
  return checked.value;
}

/**
 * Refuses a resource of another region than the stack's, when both are known at synth: the stack
 * could not use it, and the deploy would fail (or a part would silently not work).
 *
 * @param scope - a construct of the stack
 * @param row - the ARN's row, which says why the regions must match
 * @param arn - the resource's ARN
 * @param error - the error class to raise
 * @param name - the prop or context key the ARN came from, the row's prop by default
 */
export function checkArnRegion(
  scope: IConstruct,
  row: ArnSetting,
  arn: string,
  error: ConfigurationErrorClass,
  name: string = row.prop,
): void {
  const stackRegion = Stack.of(scope).region;
  if (Token.isUnresolved(arn) || Token.isUnresolved(stackRegion)) return;
  const region = arnRegion(arn);
  if (region !== undefined && region !== stackRegion) {
    throw new error(
      `${name} is in ${region} but the stack is in ${stackRegion}: ${row.sameRegion}`,
    );
  }
}
