/**
 * The kinds of value a setting can hold, and the one check of each: a whole number, a number, a
 * boolean, a text, a choice, a list, a duration in whole seconds, an ARN. A value comes as a
 * construct prop, a CDK context value (`-c key=value` text, or JSON from `cdk.json`) or an
 * environment variable (text); each kind takes all three and refuses a bad one in one form,
 * `<name> must be <what>, got <value>` (a number as written, anything else as JSON), so the construct, `cdk synth`, the Lambda's cold
 * start and `npm start` say the same thing. The settings themselves are `settings.ts`.
 * Pure: no AWS, no I/O.
 * @module
 */
import { splitList } from './endpoints.js';

/** What every setting's row says, whatever its kind. */
interface SettingRowBase {
  /** The construct prop (or the stack's, for an ARN the stack imports). */
  readonly prop: string;
  /** The CDK context key: the prop's name unless `false` (a prop with no context key). */
  readonly context?: false;
  /** The environment variable of the function that reads it, when one does. */
  readonly variable?: string;
  /** The default, when the setting has one the table can state (else {@link defaultText}). */
  readonly default?: number | boolean | string | readonly string[];
  /** The default in words, for the reference, when it is not a plain value. */
  readonly defaultText?: string;
  /**
   * Set when an empty context value (`-c key=`) is refused rather than read as unset, because
   * leaving the setting out means something the empty value looks unlike: an allowlist given as
   * an empty shell variable would otherwise let every source in unnoticed.
   */
  readonly emptyRefused?: true;
  /** One line for the configuration reference. */
  readonly summary: string;
}

/** Bounds of a whole number: at least `minimum`, at most `maximum` when there is one. */
export interface WholeNumberRule {
  readonly minimum: number;
  readonly maximum?: number;
}

/** A whole number within bounds, of seconds, bytes or anything counted. */
export interface WholeNumberSetting extends SettingRowBase, WholeNumberRule {
  readonly kind: 'whole-number';
  readonly default?: number;
  readonly unit: string;
}

/** A number above a bound, fractions allowed. */
export interface NumberSetting extends SettingRowBase {
  readonly kind: 'number';
  readonly default?: number;
  /** Every value must be above this. */
  readonly above: number;
  readonly unit: string;
}

/** A duration: a `Duration` as a prop, whole seconds in context and the environment. */
export interface DurationSetting extends SettingRowBase, WholeNumberRule {
  readonly kind: 'duration';
  /** In seconds. */
  readonly default?: number;
}

/** `true` or `false`. */
export interface BooleanSetting extends SettingRowBase {
  readonly kind: 'boolean';
  readonly default?: boolean;
}

/** One of a few words. */
export interface ChoiceSetting extends SettingRowBase {
  readonly kind: 'choice';
  readonly choices: readonly string[];
  readonly default?: string;
}

/** A text, non-empty, of a form when the row gives one. */
export interface TextSetting extends SettingRowBase {
  readonly kind: 'text';
  readonly default?: string;
  /** The form the text must have, and what it is in words (`an e-mail address`). */
  readonly form?: { readonly pattern: RegExp; readonly description: string };
}

/** An ARN of one kind of resource; also refused at synth in another region than the stack's. */
export interface ArnSetting extends SettingRowBase {
  readonly kind: 'arn';
  readonly form: { readonly pattern: RegExp; readonly description: string };
  /** Why the resource must be in the stack's region, for the message refusing another. */
  readonly sameRegion: string;
}

/** What a list's own rule finds: the entries to keep (normalised), or the first problem. */
export type ListRuleResult =
  | { readonly ok: true; readonly entries: readonly string[] }
  | { readonly ok: false; readonly entry?: string; readonly problem: string };

/** A list: comma-separated text, or an array of texts. */
export interface ListSetting extends SettingRowBase {
  readonly kind: 'list';
  readonly default?: readonly string[];
  /** The list's own rule, given its entries trimmed (an empty list and empty entries included). */
  readonly rule: (entries: readonly string[]) => ListRuleResult;
  /** What the entries may be, in words, for the reference. */
  readonly entries: string;
}

/** One row of the settings table. */
export type SettingRow =
  | WholeNumberSetting
  | NumberSetting
  | DurationSetting
  | BooleanSetting
  | ChoiceSetting
  | TextSetting
  | ArnSetting
  | ListSetting;

/** The value a row's setting holds once checked. */
export type SettingValue<Row extends SettingRow> = Row['kind'] extends
  | 'whole-number'
  | 'number'
  | 'duration'
  ? number
  : Row['kind'] extends 'boolean'
    ? boolean
    : Row['kind'] extends 'list'
      ? readonly string[]
      : string;

/** A value once checked, or the one message every reader of the setting gives. */
export type SettingCheck<Value> =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly message: string };

/**
 * A setting's name in messages: its prop (or the context key it came from) and its variable,
 * `maxBodyBytes (MAX_BODY_BYTES)`.
 *
 * @param row - the setting's row
 * @param key - the name it was given under, the prop by default
 */
export function settingName(row: SettingRow, key: string = row.prop): string {
  return row.variable === undefined ? key : `${key} (${row.variable})`;
}

/** The context key of a row, or `undefined` for a prop that has none. */
export function contextKeyOf(row: SettingRow): string | undefined {
  return row.context === false ? undefined : row.prop;
}

function refused<Value>(
  name: string,
  what: string,
  given: unknown,
  shown: string = JSON.stringify(given),
): SettingCheck<Value> {
  return { ok: false, message: `${name} must be ${what}, got ${shown}` };
}

/**
 * A number as given, a prop's `3601` and an environment variable's `3601` alike, so every reader
 * of a numeric setting refuses it in the same words.
 */
function numberShown(given: unknown): string {
  return typeof given === 'number' || typeof given === 'string'
    ? String(given)
    : JSON.stringify(given);
}

/**
 * A whole number within bounds, from a number or its decimal text (surrounding spaces ignored).
 *
 * @param name - the setting's name in the message
 * @param rule - the bounds
 * @param given - the value as given
 */
export function checkWholeNumber(
  name: string,
  rule: WholeNumberRule,
  given: unknown,
): SettingCheck<number> {
  const text = typeof given === 'number' || typeof given === 'string' ? String(given).trim() : '';
  const value = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  const { minimum, maximum } = rule;
  if (value >= minimum && (maximum === undefined || value <= maximum)) return { ok: true, value };
  const range = maximum === undefined ? `of at least ${minimum}` : `from ${minimum} to ${maximum}`;
  return refused(name, `a whole number ${range}`, given, numberShown(given));
}

function checkNumber(name: string, above: number, given: unknown): SettingCheck<number> {
  const text = typeof given === 'number' || typeof given === 'string' ? String(given).trim() : '';
  const value = /^\d{1,15}(\.\d{1,15})?$/.test(text) ? Number(text) : Number.NaN;
  return value > above
    ? { ok: true, value }
    : refused(name, `a number above ${above}`, given, numberShown(given));
}

function checkBoolean(name: string, given: unknown): SettingCheck<boolean> {
  if (typeof given === 'boolean') return { ok: true, value: given };
  if (given === 'true' || given === 'false') return { ok: true, value: given === 'true' };
  return refused(name, 'true or false', given);
}

function checkText(name: string, form: TextSetting['form'], given: unknown): SettingCheck<string> {
  if (typeof given !== 'string' || given.trim() === '')
    return refused(name, 'non-empty text', given);
  if (form !== undefined && !form.pattern.test(given)) {
    return refused(name, form.description, given);
  }
  return { ok: true, value: given };
}

function checkList(
  name: string,
  rule: ListSetting['rule'],
  given: unknown,
): SettingCheck<readonly string[]> {
  const entries =
    typeof given === 'string'
      ? given.trim() === ''
        ? []
        : splitList(given)
      : Array.isArray(given) && given.every((entry) => typeof entry === 'string')
        ? given.map((entry: string) => entry.trim())
        : undefined;
  if (entries === undefined) {
    return refused(name, 'a comma-separated list or an array of texts', given);
  }
  const checked = rule(entries);
  if (checked.ok) return { ok: true, value: checked.entries };
  const entry = checked.entry === undefined ? '' : ` entry ${JSON.stringify(checked.entry)}`;
  return { ok: false, message: `${name}${entry} ${checked.problem}` };
}

/**
 * Checks a setting's value, as a prop, a context value or an environment variable's text, with
 * its row's kind; the message names the setting as `name` says.
 *
 * @param row - the setting's row
 * @param given - the value as given
 * @param name - the setting's name in the message, {@link settingName} by default
 */
export function checkSetting<Row extends SettingRow>(
  row: Row,
  given: unknown,
  name: string = settingName(row),
): SettingCheck<SettingValue<Row>> {
  const checked: SettingCheck<unknown> = (() => {
    switch (row.kind) {
      case 'whole-number':
        return checkWholeNumber(name, row, given);
      case 'duration':
        return checkWholeNumber(`${name}, in seconds,`, row, given);
      case 'number':
        return checkNumber(name, row.above, given);
      case 'boolean':
        return checkBoolean(name, given);
      case 'choice':
        return typeof given === 'string' && row.choices.includes(given)
          ? { ok: true, value: given }
          : refused(name, `one of ${row.choices.join(', ')}`, given);
      case 'text':
        return checkText(name, row.form, given);
      case 'arn':
        return checkText(name, row.form, given);
      case 'list':
        return checkList(name, row.rule, given);
    }
  })();
  return checked as SettingCheck<SettingValue<Row>>;
}

/**
 * The region of an ARN (`arn:aws:kms:eu-west-1:...` -> `eu-west-1`), or `undefined` when it names
 * none (a global resource) or is not an ARN.
 *
 * @param arn - the ARN
 */
export function arnRegion(arn: string): string | undefined {
  const region = arn.split(':')[3];
  return arn.startsWith('arn:') && region ? region : undefined;
}
