import { afterAll, beforeAll, vi } from 'vitest';

/**
 * Top-level keys a receiver log line may carry: Powertools Logger's standard keys (with the Lambda
 * context added) and the fields `lambda/receiver/observability.ts` writes. A key outside this list
 * in captured output is a forged or leaked field.
 */
export const RECEIVER_LOG_KEYS: ReadonlySet<string> = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'xray_trace_id',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'outcome',
  'status',
  'reason',
  'api_request_id',
  'event_type',
  'timestamp_age_seconds',
  'key_stage',
  'signed_form',
  'keys_refreshed',
  'dedup_key',
  'endpoint',
  'error',
  'using_stale_keys',
  'event_keys',
  'endpoint',
  'path',
  'source_ip',
]);

/** Top-level keys of an EMF blob besides the metric values it declares in `_aws`. */
const EMF_KEYS: ReadonlySet<string> = new Set(['_aws', 'service', 'reason', 'endpoint']);

/** What was written, line by line, and every way it departs from one JSON record per line. */
export interface WrittenLines {
  /** Logger records (they have `level` and `message`). */
  readonly logs: readonly Record<string, unknown>[];
  /** Embedded Metric Format blobs (they have `_aws`). */
  readonly metrics: readonly Record<string, unknown>[];
  /** One sentence per departure; empty when the output is well-formed. */
  readonly problems: readonly string[];
}

// CloudWatch splits a function's output into events at line feeds; any other C0 control written
// raw (carriage return, escape sequences) could fake a line or rewrite a terminal tailing the log.
// Written as "anything but a line feed and U+0020 onwards": the same set, without listing controls.
const RAW_CONTROL = /[^\n\u0020-\uffff]/;

/**
 * Reads captured stdout/stderr the way CloudWatch and a log query do: split at line feeds, each
 * line one JSON object. Lists as problems: raw control characters, a line that is not exactly one
 * JSON object, a record that is neither a log line nor an EMF blob, and top-level keys outside
 * {@link RECEIVER_LOG_KEYS} (log lines) or the declared metrics (EMF blobs).
 *
 * @param text - everything written, e.g. `captureOutput().text()`
 */
export function readWrittenLines(text: string): WrittenLines {
  const logs: Record<string, unknown>[] = [];
  const metrics: Record<string, unknown>[] = [];
  const problems: string[] = [];
  if (RAW_CONTROL.test(text)) problems.push('output holds a raw control character');
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const record = parseObject(line);
    if (record === undefined) {
      problems.push(`not one JSON object: ${JSON.stringify(line.slice(0, 200))}`);
    } else if ('_aws' in record) {
      metrics.push(record);
      problems.push(...unexpectedKeys(record, new Set([...EMF_KEYS, ...declaredMetrics(record)])));
    } else if ('level' in record) {
      logs.push(record);
      problems.push(...unexpectedKeys(record, RECEIVER_LOG_KEYS));
    } else {
      problems.push(`neither a log line nor metrics: ${JSON.stringify(line.slice(0, 200))}`);
    }
  }
  return { logs, metrics, problems };
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function declaredMetrics(blob: Record<string, unknown>): string[] {
  const directives = (blob._aws as { CloudWatchMetrics?: { Metrics?: { Name: string }[] }[] })
    .CloudWatchMetrics;
  return (directives ?? []).flatMap((directive) => (directive.Metrics ?? []).map((m) => m.Name));
}

function unexpectedKeys(record: Record<string, unknown>, allowed: ReadonlySet<string>): string[] {
  return Object.keys(record)
    .filter((key) => !allowed.has(key))
    .map((key) => `unexpected top-level key ${JSON.stringify(key.slice(0, 100))}`);
}

/**
 * Keeps the AWS SDK's Node version warning (printed once per process on Node < 22, several lines
 * of plain text on stderr) out of the enclosing `describe` block's captured output: it is not the
 * receiver's output. Call it before any hook that creates an SDK client.
 */
export function withoutSdkNodeVersionWarning(): void {
  beforeAll(() => {
    vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });
}
