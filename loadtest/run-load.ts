import { createHash } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RequestSource, WebhookRequest } from './request-mix.js';

/**
 * How a call was answered: `queued` / `ignored` for a 200 with that `status`, the status code as
 * text for anything else (e.g. `401`), `error` when no HTTP answer came (refused, reset, time-out).
 */
export type Outcome = 'queued' | 'ignored' | `${number}` | 'error';

/** One request of a run and its answer. */
export interface LoadResult {
  readonly index: number;
  readonly kind: string;
  /** SHA-256 hex of the body as sent: how the request is matched with queue messages. */
  readonly digest: string;
  readonly outcome: Outcome;
  /** The `Retry-After` header of the answer, if any. */
  readonly retryAfter: string | undefined;
  /**
   * When the request was sent and when its answer ended, in `performance.now()` milliseconds, so
   * a caller can place each call relative to events of its own (a fault window).
   */
  readonly startedAt: number;
  readonly endedAt: number;
  /** What went wrong when `outcome` is `error`. */
  readonly error?: string;
}

/** Options of {@link runLoad}. */
export interface RunLoadOptions {
  /** The webhook URL (http, loopback). */
  readonly url: string;
  readonly requests: RequestSource;
  /** Requests in flight at once, each on its own kept-alive connection. */
  readonly concurrency: number;
  /** No request is started after this many milliseconds; the rest count as not sent. */
  readonly timeLimitMs: number;
  /**
   * Per-request limit in milliseconds; a request without an answer by then is an `error`.
   * @default 30000
   */
  readonly requestTimeoutMs?: number;
  /** Told about every answer as it arrives, with the number answered so far (fault schedules). */
  readonly onAnswer?: (result: LoadResult, answered: number) => void;
  /**
   * How many of the first requests to build (and sign) before the clock starts, as a load
   * generator such as autocannon prepares its requests; the rest are built when sent. Building
   * a request (a booking, its signature, and for an oversized one 257 KiB to write and hash) cost
   * the generator more CPU than sending it, CPU taken from the receiver it measures when both
   * share a small machine. Only for requests whose signatures stay fresh that long.
   * @default 0: every request is built when sent (signatures take the send time)
   */
  readonly buildAhead?: number;
}

/**
 * Most requests {@link runLoad} builds ahead: with the default mix and `MAX_BODY_BYTES` about
 * 140 MB of bodies (one in twenty is 1 KiB over `MAX_BODY_BYTES`), each let go once sent.
 */
export const MAX_BUILT_AHEAD = 10_000;

/** What {@link runLoad} did. */
export interface LoadRun {
  /** Answered requests in index order; shorter than `requests.count` when the time limit hit. */
  readonly results: LoadResult[];
  readonly elapsedMs: number;
}

/**
 * Sends every request of `requests` to `url` with `concurrency` requests in flight, recording each
 * answer. Never throws for a failed request: a refused or reset connection is an `error` outcome,
 * so a run always ends with full accounting.
 *
 * @param options - target, requests, concurrency and limits
 */
export async function runLoad(options: RunLoadOptions): Promise<LoadRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const results: LoadResult[] = [];
  const ahead: Array<{ request: WebhookRequest; digest: string } | undefined> = Array.from(
    { length: Math.min(options.buildAhead ?? 0, MAX_BUILT_AHEAD, options.requests.count) },
    (_, index) => {
      const request = options.requests.build(index);
      return { request, digest: bodyDigest(request.body) };
    },
  );
  const started = performance.now();
  const elapsed = (): number => performance.now() - started;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.requests.count && elapsed() < options.timeLimitMs) {
      const index = next;
      next += 1;
      const built = ahead[index];
      // Sent once: its body (257 KiB for an oversized one) need not outlive the call.
      ahead[index] = undefined;
      const request = built?.request ?? options.requests.build(index);
      const startedAt = performance.now();
      const answer = await post(options.url, request.body, request.headers, {
        agent,
        timeoutMs: options.requestTimeoutMs ?? 30_000,
      });
      const result: LoadResult = {
        index,
        kind: request.kind,
        digest: built?.digest ?? bodyDigest(request.body),
        startedAt,
        endedAt: performance.now(),
        ...answer,
      };
      results.push(result);
      options.onAnswer?.(result, results.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  results.sort((a, b) => a.index - b.index);
  return { results, elapsedMs: elapsed() };
}

/** SHA-256 hex of a body: the key that pairs answers with queue messages. */
export function bodyDigest(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

type Answer = Pick<LoadResult, 'outcome' | 'retryAfter' | 'error'>;

function post(
  url: string,
  body: Buffer,
  headers: Readonly<Record<string, string>>,
  options: { agent: Agent; timeoutMs: number },
): Promise<Answer> {
  return new Promise((resolve) => {
    const failed = (error: Error): void =>
      resolve({ outcome: 'error', retryAfter: undefined, error: error.message });
    const call = httpRequest(
      url,
      {
        method: 'POST',
        agent: options.agent,
        headers: { ...headers, 'content-length': String(body.byteLength) },
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', failed);
        response.on('end', () => {
          const retryAfter = response.headers['retry-after'];
          resolve({
            outcome: outcomeOf(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')),
            retryAfter,
          });
        });
      },
    );
    call.on('error', failed);
    call.end(body);
  });
}

function outcomeOf(status: number, body: string): Outcome {
  if (status !== 200) return `${status}`;
  try {
    const parsed = JSON.parse(body) as { status?: unknown };
    if (parsed.status === 'queued' || parsed.status === 'ignored') return parsed.status;
  } catch {
    // A 200 without the contract's body is reported as a bare 200.
  }
  return '200';
}
