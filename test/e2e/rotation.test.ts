import { performance } from 'node:perf_hooks';
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyRotation, type RotateAction } from '../../cli/rotate-secret/rotation.js';
import { signPayload } from '../../lambda/core/sign.js';
import {
  type RequestSource,
  runBookingBody,
  seededRandom,
  webhookHeaders,
} from '../../loadtest/request-mix.js';
import { runLoad } from '../../loadtest/run-load.js';
import { judgeRun } from '../../loadtest/verdict.js';
import { answerWatch } from '../support/answer-watch.js';
import { type CapturedOutput, captureOutput } from '../support/capture-output.js';
import { type HttpReceiver, startHttpReceiver } from '../support/http-receiver.js';
import { useLocalSqs } from '../support/local-sqs.js';
import { FakeSecretStore, serveSecretStore } from '../support/secret-store.js';

const NOW = 1_795_000_000;
const SECRET_ID = 'webhook/signing-key';
const OLD_KEY = 'sm-key-old-3f0a';
const NEW_KEY = 'sm-key-new-b71d';
const CALLS = 1000;
/** Test clock seconds per call built: 1,000 calls span 500 s, crossing the 60 s cache 8 times. */
const SECONDS_PER_CALL = 0.5;
/**
 * The receiver picks a rotation up at its next cache expiry or on the first mismatch 30 s after
 * its last load, so the sender starts signing with the new key 31 s after the rotation step.
 */
const SENDER_SWITCH_DELAY = 31;

// Load runs of several hundred calls: generous on two cores shared with the rest of npm test.
describe('Rotation under traffic (rotate-secret against a receiver taking 20 concurrent calls)', {
  timeout: 60_000,
}, () => {
  const sqs = useLocalSqs();
  let output: CapturedOutput;
  let receiver: HttpReceiver;
  let store: FakeSecretStore;
  let runCount = 0;
  const clock = { now: NOW };
  const secretsManager = new SecretsManagerClient({ region: 'eu-west-1' });
  const mock = mockClient(secretsManager);

  beforeEach(async () => {
    output = captureOutput();
    mock.reset();
    clock.now = NOW - 90 * 86_400;
    store = new FakeSecretStore(() => new Date(clock.now * 1000));
    store.put(OLD_KEY);
    serveSecretStore(mock, store);
    clock.now = NOW;
    receiver = await startReceiver({ SECRET_ID, SECRET_CACHE_SECONDS: '60' });
  });
  afterEach(async () => {
    await receiver.close();
    output.restore();
  });

  function startReceiver(env: Record<string, string>): Promise<HttpReceiver> {
    return startHttpReceiver({
      sqs: sqs(),
      queueName: `rotation-${process.pid}-${++runCount}`,
      env,
      dependencies: { secretsManagerClient: secretsManager, now: () => clock.now * 1000 },
    });
  }

  /**
   * Sends {@link CALLS} bookings at 20 connections while `steps` rotate the key: each step runs
   * `rotate-secret`'s own logic once its answer count is reached. The sender signs with the old
   * key until {@link SENDER_SWITCH_DELAY} after the first step, then alternates old and new (a
   * fleet switching over); every tenth call is forged.
   */
  async function rotateUnderTraffic(steps: { afterAnswers: number; action: RotateAction }[]) {
    const watch = answerWatch();
    const sender = { switchAt: Number.POSITIVE_INFINITY };
    const applied: { action: RotateAction['kind']; at: number }[] = [];
    const rotations = (async () => {
      for (const step of steps) {
        await watch.reached(step.afterAnswers);
        await applyRotation(secretsManager, SECRET_ID, step.action);
        applied.push({ action: step.action.kind, at: performance.now() });
        sender.switchAt = Math.min(sender.switchAt, clock.now + SENDER_SWITCH_DELAY);
      }
    })();
    const random = seededRandom(steps.length);
    const requests: RequestSource = {
      count: CALLS,
      build: (index) => {
        clock.now += SECONDS_PER_CALL;
        const timestamp = Math.floor(clock.now);
        const body = runBookingBody({ runId: 'rotation', index, random, now: timestamp });
        const [kind, key] =
          index % 10 === 9
            ? ['forged', 'sm-key-forged']
            : clock.now >= sender.switchAt && index % 2 === 0
              ? ['new_key', NEW_KEY]
              : ['old_key', OLD_KEY];
        return {
          kind,
          body: Buffer.from(body),
          headers: webhookHeaders(signPayload(body, key, timestamp)),
        };
      },
    };
    const run = await runLoad({
      url: receiver.url,
      requests,
      concurrency: 20,
      timeLimitMs: 60_000,
      onAnswer: watch.onAnswer,
    });
    watch.finish();
    await rotations;
    const queue = await receiver.drain('rotation');
    const verdict = judgeRun({
      requested: CALLS,
      results: run.results,
      messages: queue.messages,
      expectations: { old_key: ['queued'], new_key: ['queued'], forged: ['401'] },
      standardQueue: true,
    });
    const stagesMatched = new Set(
      output
        .logs()
        .filter((line) => line.outcome === 'queued')
        // The usual stage goes without saying in the log line.
        .map((line) => line.key_stage ?? 'AWSCURRENT'),
    );
    return { results: run.results, problems: verdict.problems, applied, stagesMatched };
  }

  it('accepts every call signed with the old or the new key while a key is staged and then promoted', async () => {
    // Act
    const run = await rotateUnderTraffic([
      { afterAnswers: 100, action: { kind: 'stage', key: NEW_KEY } },
      { afterAnswers: 500, action: { kind: 'promote' } },
    ]);

    // Assess
    expect(run.problems).toEqual([]);
    const promotedAt = run.applied.find((step) => step.action === 'promote')?.at ?? 0;
    const newKeyCalls = run.results.filter((result) => result.kind === 'new_key');
    expect(newKeyCalls.filter((result) => result.endedAt < promotedAt).length).toBeGreaterThan(100);
    expect(newKeyCalls.filter((result) => result.startedAt > promotedAt).length).toBeGreaterThan(
      100,
    );
    expect(run.stagesMatched).toEqual(new Set(['AWSCURRENT', 'AWSPENDING', 'AWSPREVIOUS']));
    expect(store.versions().map((version) => version.stages)).toEqual([
      ['AWSPREVIOUS'],
      ['AWSCURRENT'],
    ]);
  });

  it('accepts every call signed with the old key inside the grace period or the new key after a put', async () => {
    // Act
    const run = await rotateUnderTraffic([
      { afterAnswers: 100, action: { kind: 'put', key: NEW_KEY } },
    ]);

    // Assess
    expect(run.problems).toEqual([]);
    const oldKeyAfterPut = run.results.filter(
      (result) => result.kind === 'old_key' && result.startedAt > (run.applied[0]?.at ?? 0),
    );
    expect(oldKeyAfterPut.length).toBeGreaterThan(300);
    expect(run.results.filter((result) => result.kind === 'new_key').length).toBeGreaterThan(300);
    expect(run.stagesMatched).toEqual(new Set(['AWSCURRENT', 'AWSPREVIOUS']));
  });

  it('accepts the new key after a put with the default hour-long key cache: a mismatch reloads it', async () => {
    // Prepare: SECRET_CACHE_SECONDS left at its default, longer than the whole run (500 s of
    // test clock), so only the reload after a mismatch can bring the new key in.
    await receiver.close();
    receiver = await startReceiver({ SECRET_ID });

    // Act
    const run = await rotateUnderTraffic([
      { afterAnswers: 100, action: { kind: 'put', key: NEW_KEY } },
    ]);

    // Assess: every call signed with either key queued (the old one as AWSPREVIOUS, within its
    // grace period); reloads, forged calls' included, at most one per 30 s of test clock.
    expect(run.problems).toEqual([]);
    expect(run.results.filter((result) => result.kind === 'new_key').length).toBeGreaterThan(300);
    expect(run.stagesMatched).toEqual(new Set(['AWSCURRENT', 'AWSPREVIOUS']));
    expect(mock.commandCalls(DescribeSecretCommand).length).toBeLessThanOrEqual(
      1 + Math.ceil((CALLS * SECONDS_PER_CALL) / 30),
    );
  });
});
