/**
 * The load test's command line: its options, their bounds, and the receiver settings the mix
 * straddles, read as the receiver reads them.
 * @module
 */
import {
  LOCAL_ARCHIVE,
  LOOPBACK_NAMES_TEXT,
  localArchiveEndpoint,
  localPort,
} from '../devkit/local-run.js';
import { isLoopbackUrl } from '../devkit/sqs-client.js';
import { isHttpUrl, parseToolArgs, UsageError, urlWithoutPassword } from '../devkit/tool-io.js';
import { ConfigError } from '../lambda/contract/environment.js';
import { loadConfig, type ReceiverConfig } from '../lambda/receiver/config.js';

/** Bounds that keep a mistyped number from turning into an hour-long run. */
export const LIMITS = {
  requests: 100_000,
  concurrency: 256,
  timeLimitSeconds: 3600,
  warmUpSeconds: 60,
} as const;

/**
 * Seconds of the mix sent before the timed calls by default (the bench warms up its valid calls
 * as long): a fresh Node process compiles its hot paths over its first few thousand calls, and a
 * run timed from the first call measures that compilation more than the receiver
 * (`docs/performance.md` has the figures).
 */
export const DEFAULT_WARM_UP_SECONDS = 3;

export interface LoadtestOptions {
  readonly requests: number;
  readonly concurrency: number;
  readonly url: string | undefined;
  /**
   * With `--url`: the archive of that npm start (`http://127.0.0.1:<port>/<bucket>`, the port
   * from its variable), which the run reads instead of its queue.
   */
  readonly archiveUrl: string;
  /**
   * With `--url`, `--queue-url`: the queue that npm start forwards to, whose depth the summary
   * reports before and after the run. Only its attributes are read, never a message.
   */
  readonly queueUrl: string | undefined;
  readonly seed: number;
  readonly timeLimitSeconds: number;
  /** Seconds of the mix sent before the timed calls; 0 for none. */
  readonly warmUpSeconds: number;
  /** The receiver settings the mix depends on. */
  readonly config: ReceiverConfig;
}

/**
 * The receiver's limits, validated exactly as the receiver validates them at cold start, so the
 * stale and oversized calls straddle the limits it really applies. Key and queue do not matter
 * here: placeholders stand in for them.
 */
export function receiverSettings(env: NodeJS.ProcessEnv): ReceiverConfig {
  let config: ReceiverConfig;
  try {
    config = loadConfig({
      ...env,
      SECRET_ID: undefined,
      WEBHOOK_SECRET: 'placeholder',
      QUEUE_URL: 'http://127.0.0.1/placeholder',
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  if (config.forwardEvents === '*' || config.forwardEvents.has('event_cancelled')) {
    throw new UsageError(
      'FORWARD_EVENTS forwards event_cancelled: the mix relies on it being answered 200 ignored',
    );
  }
  return config;
}

export function parseOptions(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): LoadtestOptions | 'help' {
  const values = parseToolArgs(args, {
    requests: { type: 'string' },
    concurrency: { type: 'string' },
    url: { type: 'string' },
    'queue-url': { type: 'string' },
    seed: { type: 'string' },
    'time-limit': { type: 'string' },
    'warm-up': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  if (values['queue-url'] !== undefined && values.url === undefined) {
    throw new UsageError('--queue-url goes with --url (the started npm start has its own queue)');
  }
  const url = values.url === undefined ? undefined : loopbackUrl('--url', values.url);
  const queueUrl =
    values['queue-url'] === undefined ? undefined : loopbackUrl('--queue-url', values['queue-url']);
  return {
    requests: wholeNumber('--requests', values.requests, 5000, 1, LIMITS.requests),
    concurrency: wholeNumber('--concurrency', values.concurrency, 20, 1, LIMITS.concurrency),
    url,
    archiveUrl: `${localArchiveEndpoint(localPort(env, 'archive'))}/${LOCAL_ARCHIVE.bucket}`,
    queueUrl,
    seed: wholeNumber('--seed', values.seed, 1, 0, 2 ** 32 - 1),
    timeLimitSeconds: wholeNumber(
      '--time-limit',
      values['time-limit'],
      120,
      1,
      LIMITS.timeLimitSeconds,
    ),
    warmUpSeconds: wholeNumber(
      '--warm-up',
      values['warm-up'],
      DEFAULT_WARM_UP_SECONDS,
      0,
      LIMITS.warmUpSeconds,
    ),
    config: receiverSettings(env),
  };
}

function wholeNumber(
  name: string,
  text: string | undefined,
  fallback: number,
  minimum: number,
  maximum: number,
): number {
  if (text === undefined) return fallback;
  const value = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= minimum && value <= maximum)) {
    throw new UsageError(
      `${name} must be a whole number from ${minimum} to ${maximum}, got '${text}'`,
    );
  }
  return value;
}

function loopbackUrl(name: string, text: string): string {
  if (!isHttpUrl(text))
    throw new UsageError(`${name} must be an http URL, got '${urlWithoutPassword(text)}'`);
  if (!isLoopbackUrl(text)) {
    throw new UsageError(
      `${name} must point at this machine (${LOOPBACK_NAMES_TEXT}), got '${urlWithoutPassword(text)}'`,
    );
  }
  return text;
}
