import { describe, expect, it } from 'vitest';
import { withAbortAfter } from '../../../lambda/receiver/abort-after.js';

/** Timers pending in this process. */
const pendingTimers = () =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

/** A call that only ends when its signal aborts, with the signal's reason. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason));
  });

describe('Function: withAbortAfter', () => {
  it('aborts a call that takes longer than its time with a TimeoutError', async () => {
    // Act
    const started = Date.now();
    const outcome = await withAbortAfter(50, untilAborted).catch((error: unknown) => error);

    // Assess
    expect(outcome).toBeInstanceOf(DOMException);
    expect((outcome as DOMException).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('leaves no timer behind once the call has settled, answered or failed', async () => {
    // Prepare
    const before = pendingTimers();

    // Act
    const answer = await withAbortAfter(60_000, async () => 'answered');
    const failure = await withAbortAfter(60_000, async () => {
      throw new Error('refused');
    }).catch((error: unknown) => error);

    // Assess
    expect(answer).toBe('answered');
    expect(failure).toEqual(new Error('refused'));
    expect(pendingTimers()).toBe(before);
  });
});
