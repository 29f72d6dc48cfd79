import { resolve } from 'node:path';
import { MAX_BODY_BYTES_LIMIT } from '../lambda/contract/settings.js';
import { readFileUpTo } from './bounded-read.js';
import { UsageError } from './tool-io.js';

/** The current time as whole Unix seconds, the unit of `t` in `Service-Signature`. */
export function unixSecondsNow(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * A whole number of seconds given as an option (`--t`, `--now`, `--tolerance`), or `fallback`
 * when the option is absent.
 *
 * @param flag - the option as the user typed it, for the message, e.g. `--now`
 * @param text - the option's value, `undefined` when absent
 * @throws {UsageError} when the value is not decimal digits (at most 15, so it stays exact)
 */
export function wholeSecondsOption(
  flag: string,
  text: string | undefined,
  fallback: number,
): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]{1,15}$/.test(text)) {
    throw new UsageError(`${flag} must be a whole number of seconds, got '${text}'`);
  }
  return Number(text);
}

/**
 * An ISO 8601 time with a date, a time and a zone (`Z` or `±hh:mm`): a time without a zone would
 * be read in the machine's zone, a window an operator did not mean.
 */
const ISO_TIME =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})T(?<hour>\d{2}):(?<minute>\d{2})(:(?<second>\d{2})(\.\d{1,9})?)?(?<zone>Z|[+-](?<zoneHour>\d{2}):?(?<zoneMinute>\d{2}))$/;

/**
 * A required point in time given as an option (`--from`, `--to`): ISO 8601 with a zone.
 *
 * @param flag - the option as the user typed it, for the message, e.g. `--from`
 * @param text - the option's value, `undefined` when absent
 * @throws {UsageError} when the option is absent, has no zone, or is no real time (a day past
 *   the end of its month, an hour past 23, a minute or second past 59)
 */
export function isoTimeOption(flag: string, text: string | undefined): Date {
  if (text === undefined) throw new UsageError(`${flag} is required`);
  const notIsoTime = () =>
    new UsageError(
      `${flag} must be an ISO 8601 time with a zone, e.g. 2026-11-27T09:00:00Z, got '${text}'`,
    );
  const fields = ISO_TIME.exec(text)?.groups;
  if (fields === undefined) throw notIsoTime();
  const impossible = impossibleField(fields);
  if (impossible !== undefined) {
    throw new UsageError(`${flag} must be a real time, got '${text}': ${impossible}`);
  }
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw notIsoTime();
  return at;
}

/**
 * Which field of an {@link ISO_TIME} match no calendar or clock has, if any. Checked here rather
 * than left to `Date`, which reads February 30 as March 2 and 24:00 as the next midnight: a
 * window would silently start elsewhere than typed.
 */
function impossibleField(fields: Readonly<Record<string, string | undefined>>): string | undefined {
  const number = (name: string) => Number(fields[name] ?? '0');
  const month = number('month');
  if (month < 1 || month > 12) return `there is no month ${fields.month}`;
  const monthDays = daysInMonth(number('year'), month);
  const day = number('day');
  if (day < 1 || day > monthDays) {
    return `${fields.year}-${fields.month} has days 01 to ${monthDays}`;
  }
  if (number('hour') > 23) return 'hours are 00 to 23';
  if (number('minute') > 59 || number('second') > 59) return 'minutes and seconds are 00 to 59';
  if (number('zoneHour') > 23 || number('zoneMinute') > 59) {
    return `${fields.zone} is no time zone offset`;
  }
  return undefined;
}

/** Days of a month (1 to 12) of the proleptic Gregorian calendar that ISO 8601 and `Date` use. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * A count of at least 1 given as an option (`--max`), or `undefined` when the option is absent.
 *
 * @param flag - the option as the user typed it, for the message, e.g. `--max`
 * @param text - the option's value, `undefined` when absent
 * @param unit - what is counted, for the message, e.g. `messages`
 * @throws {UsageError} when the value is not decimal digits from 1 (at most 9, so it stays exact)
 */
export function wholeCountOption(
  flag: string,
  text: string | undefined,
  unit: string,
): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(text)) {
    throw new UsageError(`${flag} must be a whole number of ${unit} from 1, got '${text}'`);
  }
  return Number(text);
}

/**
 * The exact bytes of a body file named by an option (`--file`, `--body-file`), up to the largest
 * body any receiver accepts ({@link MAX_BODY_BYTES_LIMIT}, the most `MAX_BODY_BYTES` allows): a
 * larger file is refused without being read further, so `/dev/zero` costs 500 KB, not the disk.
 *
 * @param flag - the option as typed, for messages, e.g. `--body-file`
 * @param path - the option's value, relative to `cwd`; `undefined` when the option is absent
 * @param cwd - the user's directory
 * @throws {UsageError} when the option is absent, the file cannot be read, or it is too large
 */
export async function readFileOption(
  flag: string,
  path: string | undefined,
  cwd: string,
): Promise<Buffer> {
  if (path === undefined) throw new UsageError(`${flag} is required`);
  let bytes: Buffer | 'too-large';
  try {
    bytes = await readFileUpTo(resolve(cwd, path), MAX_BODY_BYTES_LIMIT);
  } catch (error) {
    throw new UsageError(
      `cannot read ${flag} ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (bytes === 'too-large') {
    throw new UsageError(
      `${flag} ${path} holds more than ${MAX_BODY_BYTES_LIMIT} bytes, the largest body a receiver accepts (MAX_BODY_BYTES is at most ${MAX_BODY_BYTES_LIMIT})`,
    );
  }
  return bytes;
}
