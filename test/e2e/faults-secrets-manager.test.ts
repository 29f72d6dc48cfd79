import {
  DescribeSecretCommand,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RequestSource, requestMix } from '../../loadtest/request-mix.js';
import { type LoadRun, runLoad } from '../../loadtest/run-load.js';
import { CONTRACT, type Expectations, judgeRun } from '../../loadtest/verdict.js';
import { type CapturedOutput, captureOutput } from '../support/capture-output.js';
import { type HttpReceiver, startHttpReceiver } from '../support/http-receiver.js';
import { useLocalSqs } from '../support/local-sqs.js';
import { fakeSecretVersions } from '../support/secrets-manager.js';

const NOW = 1_795_000_000;
const KEY = 'sm-key-faults-41c9';
const MAX_BODY_BYTES = 8192;
const CURRENT = {
  versionId: 'v1',
  value: KEY,
  createdAt: new Date((NOW - 90 * 86_400) * 1000),
  stages: ['AWSCURRENT'],
};

/** Secrets Manager failing the way an outage or a throttling storm looks to the SDK. */
const OUTAGE = new SecretsManagerServiceException({
  name: 'InternalServiceError',
  $fault: 'server',
  $metadata: { httpStatusCode: 500 },
  message: 'An error occurred on the server side.',
});

/** Without keys every verdict waits: 503 for all but what is refused before keys are needed. */
const NO_KEYS: Expectations = Object.fromEntries([
  ...Object.keys(CONTRACT).map((kind) => [kind, ['503']]),
  ['oversized', ['413']],
]);

/**
 * With stale keys the receiver cannot tell a forgery from a call signed with a key rotated in
 * since the last good load: a mismatch waits (503) instead of being refused; the rest holds.
 */
const STALE_KEYS: Expectations = { ...CONTRACT, forged: ['503'] };

// Load runs of several hundred calls: generous on two cores shared with the rest of npm test.
describe('Fault: Secrets Manager unavailable under load', { timeout: 60_000 }, () => {
  const sqs = useLocalSqs();
  let output: CapturedOutput;
  let receiver: HttpReceiver;
  let runCount = 0;
  const clock = { now: NOW };
  const secretsManager = new SecretsManagerClient({ region: 'eu-west-1' });
  const mock = mockClient(secretsManager);
  const describeCalls = (): number => mock.commandCalls(DescribeSecretCommand).length;

  beforeEach(async () => {
    output = captureOutput();
    mock.reset();
    clock.now = NOW;
    receiver = await startHttpReceiver({
      sqs: sqs(),
      queueName: `faults-sm-${process.pid}-${++runCount}`,
      env: { SECRET_ID: 'webhook/signing-key', SECRET_CACHE_SECONDS: '60', MAX_BODY_BYTES: '8192' },
      dependencies: { secretsManagerClient: secretsManager, now: () => clock.now * 1000 },
    });
  });
  afterEach(async () => {
    await receiver.close();
    output.restore();
  });

  /**
   * `count` calls of the load mix at 20 connections, signed at the test clock, which moves
   * `secondsPerCall` forward as each call is built; then the queue is drained and judged.
   */
  async function load(
    runId: string,
    count: number,
    expectations: Expectations,
    secondsPerCall = 0,
  ) {
    const mix = requestMix({
      count,
      key: KEY,
      runId,
      seed: count,
      toleranceSeconds: 300,
      maxBodyBytes: MAX_BODY_BYTES,
      now: () => Math.floor(clock.now),
    });
    const requests: RequestSource = {
      count,
      build: (index) => {
        clock.now += secondsPerCall;
        return mix.build(index);
      },
    };
    const run: LoadRun = await runLoad({
      url: receiver.url,
      requests,
      concurrency: 20,
      timeLimitMs: 30_000,
    });
    const queue = await receiver.drain(runId);
    const verdict = judgeRun({
      requested: count,
      results: run.results,
      messages: queue.messages,
      expectations,
      standardQueue: true,
    });
    return { run, problems: verdict.problems };
  }

  it('answers a burst at cold start 503 with Retry-After, never 401, with one Secrets Manager call, and serves the contract 30 s later', async () => {
    // Prepare
    mock.on(DescribeSecretCommand).rejects(OUTAGE);

    // Act
    const outage = await load('cold-outage', 300, NO_KEYS);
    const callsDuringOutage = describeCalls();
    fakeSecretVersions(mock, [CURRENT]);
    clock.now += 31;
    const recovered = await load('cold-recovered', 300, CONTRACT);

    // Assess
    expect(outage.problems).toEqual([]);
    const retryAfter = outage.run.results
      .filter((result) => result.outcome === '503')
      .map((result) => result.retryAfter);
    expect(retryAfter).toHaveLength(285);
    expect(new Set(retryAfter)).toEqual(new Set(['30']));
    expect(callsDuringOutage).toBe(1);
    expect(recovered.problems).toEqual([]);
    expect(describeCalls()).toBe(2);
  });

  it('keeps the cached keys working through an outage during refreshes under traffic, answers mismatches 503, and retries at most once per 30 s', async () => {
    // Prepare: keys loaded at cold start, then Secrets Manager fails as the 60 s cache expires
    fakeSecretVersions(mock, [CURRENT]);
    const warm = await load('refresh-warm', 200, CONTRACT);
    mock.on(DescribeSecretCommand).rejects(OUTAGE);
    clock.now += 61;
    const loadsBefore = describeCalls();

    // Act: 400 calls over 200 s of the test clock, all of it outage
    const outage = await load('refresh-outage', 400, STALE_KEYS, 0.5);
    const loadsDuringOutage = describeCalls() - loadsBefore;
    fakeSecretVersions(mock, [CURRENT]);
    clock.now += 31;
    const recovered = await load('refresh-recovered', 200, CONTRACT);

    // Assess
    expect(warm.problems).toEqual([]);
    expect(outage.problems).toEqual([]);
    const forgedRetryAfter = outage.run.results
      .filter((result) => result.kind === 'forged')
      .map((result) => result.retryAfter);
    expect(new Set(forgedRetryAfter)).toEqual(new Set(['30']));
    expect(recovered.problems).toEqual([]);
    expect(loadsDuringOutage).toBeGreaterThanOrEqual(2);
    expect(loadsDuringOutage).toBeLessThanOrEqual(Math.ceil(200 / 30));
    const staleWarnings = output.logs().filter((line) => line.using_stale_keys === true);
    expect(staleWarnings).toHaveLength(loadsDuringOutage);
    expect(describeCalls() - loadsBefore - loadsDuringOutage).toBe(1);
  });
});
