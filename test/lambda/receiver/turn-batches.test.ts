import { describe, expect, it } from 'vitest';
import { WebhookReceiverError } from '../../../lambda/core/errors.js';
import { turnBatches } from '../../../lambda/receiver/turn-batches.js';

/** A batch sender that records each call and takes every item, or fails as told. */
function recorder(fail?: (items: readonly string[]) => unknown[] | Error) {
  const calls: Array<{ items: readonly string[]; timeLeftMs: number }> = [];
  const send = async (items: readonly string[], timeLeftMs: number) => {
    calls.push({ items, timeLeftMs });
    const outcome = fail?.(items);
    if (outcome instanceof Error) throw outcome;
    return outcome ?? items.map(() => undefined);
  };
  return { calls, send };
}

const LIMITS = { items: 3, bytes: 10, bytesOf: (item: string) => item.length };
const NOW = 1_000_000;

describe('Function: turnBatches', () => {
  it('sends the items given in one turn in one call, in order, and later ones in another', async () => {
    // Prepare
    const { calls, send } = recorder();
    const put = turnBatches(LIMITS, send, () => NOW);

    // Act
    const first = await Promise.all([put('a', NOW + 500), put('b', NOW + 500)]);
    const second = await put('c', NOW + 500);

    // Assess
    expect(first).toEqual([undefined, undefined]);
    expect(second).toBeUndefined();
    expect(calls.map(({ items }) => items)).toEqual([['a', 'b'], ['c']]);
  });

  it('splits a turn by the item and byte limits, an item over the byte limit going alone', async () => {
    // Prepare
    const { calls, send } = recorder();
    const put = turnBatches(LIMITS, send, () => NOW);

    // Act
    await Promise.all(
      ['a', 'b', 'c', 'd', 'eeeeee', 'ffff', 'g'.repeat(12), 'h'].map((item) => put(item, NOW + 9)),
    );

    // Assess
    expect(calls.map(({ items }) => items)).toEqual([
      ['a', 'b', 'c'],
      ['d', 'eeeeee'],
      ['ffff'],
      ['g'.repeat(12)],
      ['h'],
    ]);
  });

  it('gives a batch the time left to its most pressed item, at least 1 ms', async () => {
    // Prepare
    const { calls, send } = recorder();
    const put = turnBatches(LIMITS, send, () => NOW);

    // Act
    await Promise.all([put('a', NOW + 500), put('b', NOW + 120), put('c', NOW + 900)]);
    await put('late', NOW - 50);

    // Assess
    expect(calls.map(({ timeLeftMs }) => timeLeftMs)).toEqual([120, 1]);
  });

  it("settles each item with its own entry's outcome", async () => {
    // Prepare
    const refused = new Error('entry refused');
    const { send } = recorder((items) => items.map((item) => (item === 'b' ? refused : undefined)));
    const put = turnBatches(LIMITS, send, () => NOW);

    // Act
    const outcomes = await Promise.all(['a', 'b', 'c'].map((item) => put(item, NOW + 500)));

    // Assess
    expect(outcomes).toEqual([undefined, refused, undefined]);
  });

  it("settles every item of a call that failed as a whole with that call's error, never rejecting", async () => {
    // Prepare
    const outage = new Error('connection refused');
    const { send } = recorder(() => outage);
    const put = turnBatches(LIMITS, send, () => NOW);

    // Act
    const outcomes = await Promise.all(['a', 'b'].map((item) => put(item, NOW + 500)));

    // Assess
    expect(outcomes).toEqual([outage, outage]);
  });

  it('fails every item of a batch whose sender gave fewer outcomes than items, so none passes for taken', async () => {
    // Prepare
    const { send } = recorder(() => [undefined]);
    const put = turnBatches(LIMITS, send, () => NOW);

    // Act
    const outcomes = await Promise.all(['a', 'b'].map((item) => put(item, NOW + 500)));

    // Assess
    expect(outcomes).toEqual([expect.any(WebhookReceiverError), expect.any(WebhookReceiverError)]);
  });

  it('settles the items of a sender that throws before it returns a promise', async () => {
    // Prepare
    const put = turnBatches(
      LIMITS,
      () => {
        throw new Error('not even a promise');
      },
      () => NOW,
    );

    // Act
    const outcome = await put('a', NOW + 500);

    // Assess
    expect(outcome).toMatchObject({ message: 'not even a promise' });
  });
});
