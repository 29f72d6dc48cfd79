import { describe, expect, it } from 'vitest';
import { WebhookReceiverError } from '../../../lambda/core/errors.js';
import {
  BatchEntryError,
  type BatchSender,
  type EntryOutcome,
  turnBatches,
} from '../../../lambda/receiver/turn-batches.js';

const LIMITS = { items: 3, bytes: 10, bytesOf: (item: string) => item.length };
const NOW = 1_000_000;

interface Call {
  readonly api: 'one' | 'many';
  readonly items: readonly string[];
  readonly timeLeftMs: number;
}

/**
 * A sender that records each call. `many` takes every item unless `entries` says otherwise;
 * `one` takes its item unless `refuseAlone` throws for it.
 */
function recorder(
  options: {
    readonly entries?: (items: readonly string[]) => readonly EntryOutcome[];
    readonly refuseAlone?: (item: string) => void;
  } = {},
): { calls: Call[]; sender: BatchSender<string> } {
  const calls: Call[] = [];
  return {
    calls,
    sender: {
      limits: LIMITS,
      async one(item, timeLeftMs) {
        calls.push({ api: 'one', items: [item], timeLeftMs });
        options.refuseAlone?.(item);
      },
      async many(items, timeLeftMs) {
        calls.push({ api: 'many', items, timeLeftMs });
        return options.entries?.(items) ?? items.map(() => undefined);
      },
    },
  };
}

const refusedEntry = (retryAlone: boolean) => ({
  error: new BatchEntryError('InternalError', 'try again'),
  retryAlone,
});

describe('Function: turnBatches', () => {
  it('sends the items given in one turn in one batch call, and an item alone by the single-item API', async () => {
    // Prepare
    const { calls, sender } = recorder();
    const put = turnBatches(sender, () => NOW);

    // Act
    const first = await Promise.all([put('a', NOW + 500), put('b', NOW + 500)]);
    const second = await put('c', NOW + 500);

    // Assess
    expect(first).toEqual([undefined, undefined]);
    expect(second).toBeUndefined();
    expect(calls.map(({ api, items }) => [api, items])).toEqual([
      ['many', ['a', 'b']],
      ['one', ['c']],
    ]);
  });

  it('holds the items given while a call is in flight, then sends them together in one call', async () => {
    // Prepare: the first call stays in flight until released
    let release: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { calls, sender } = recorder();
    const put = turnBatches(
      {
        ...sender,
        async one(item, timeLeftMs) {
          await sender.one(item, timeLeftMs);
          if (item === 'first') await inFlight;
        },
      },
      () => NOW,
    );

    // Act
    const first = put('first', NOW + 500);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [put('b', NOW + 500)];
    await new Promise((resolve) => setTimeout(resolve, 5));
    later.push(put('c', NOW + 500));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const sentWhileInFlight = calls.length;
    release();
    const outcomes = await Promise.all([first, ...later]);

    // Assess
    expect(sentWhileInFlight).toBe(1);
    expect(outcomes).toEqual([undefined, undefined, undefined]);
    expect(calls.map(({ api, items }) => [api, items])).toEqual([
      ['one', ['first']],
      ['many', ['b', 'c']],
    ]);
  });

  it('splits a turn by the item and byte limits, each item in the first batch it fits, one over the byte limit alone', async () => {
    // Prepare
    const { calls, sender } = recorder();
    const put = turnBatches(sender, () => NOW);

    // Act
    await Promise.all(
      ['a', 'b', 'c', 'd', 'eeeeee', 'ffff', 'g'.repeat(12), 'h'].map((item) => put(item, NOW + 9)),
    );

    // Assess
    expect(calls.map(({ items }) => items)).toEqual([
      ['a', 'b', 'c'],
      ['d', 'eeeeee', 'h'],
      ['ffff'],
      ['g'.repeat(12)],
    ]);
  });

  it('gives a batch the time left to its most pressed item, at least 1 ms', async () => {
    // Prepare
    const { calls, sender } = recorder();
    const put = turnBatches(sender, () => NOW);

    // Act
    await Promise.all([put('a', NOW + 500), put('b', NOW + 120), put('c', NOW + 900)]);
    await put('late', NOW - 50);

    // Assess
    expect(calls.map(({ timeLeftMs }) => timeLeftMs)).toEqual([120, 1]);
  });

  it('sends an item whose time is nearly up in a call of its own, not cutting short the others', async () => {
    // Prepare
    const { calls, sender } = recorder();
    const put = turnBatches(sender, () => NOW);

    // Act
    await Promise.all([put('a', NOW + 5000), put('trickled', NOW - 10), put('c', NOW + 4500)]);

    // Assess
    expect(calls).toEqual([
      { api: 'many', items: ['a', 'c'], timeLeftMs: 4500 },
      { api: 'one', items: ['trickled'], timeLeftMs: 1 },
    ]);
  });

  it("settles each item with its own entry's outcome, an entry refused for its own fault not sent again", async () => {
    // Prepare
    const { calls, sender } = recorder({
      entries: (items) => items.map((item) => (item === 'b' ? refusedEntry(false) : undefined)),
    });
    const put = turnBatches(sender, () => NOW);

    // Act
    const outcomes = await Promise.all(['a', 'b', 'c'].map((item) => put(item, NOW + 500)));

    // Assess
    expect(outcomes).toEqual([undefined, expect.any(BatchEntryError), undefined]);
    expect(calls.map(({ api }) => api)).toEqual(['many']);
  });

  it("sends an entry refused for the service's fault again alone, taken if that call takes it", async () => {
    // Prepare
    const { calls, sender } = recorder({
      entries: (items) => items.map((item) => (item === 'b' ? refusedEntry(true) : undefined)),
    });
    const put = turnBatches(sender, () => NOW);

    // Act
    const outcomes = await Promise.all(['a', 'b'].map((item) => put(item, NOW + 500)));

    // Assess
    expect(outcomes).toEqual([undefined, undefined]);
    expect(calls.map(({ api, items }) => [api, items])).toEqual([
      ['many', ['a', 'b']],
      ['one', ['b']],
    ]);
  });

  it('fails an entry whose call alone fails too, with that call’s error', async () => {
    // Prepare
    const outage = new Error('still down');
    const { sender } = recorder({
      entries: (items) => items.map((item) => (item === 'b' ? refusedEntry(true) : undefined)),
      refuseAlone: () => {
        throw outage;
      },
    });
    const put = turnBatches(sender, () => NOW);

    // Act
    const outcomes = await Promise.all(['a', 'b'].map((item) => put(item, NOW + 500)));

    // Assess
    expect(outcomes).toEqual([undefined, outage]);
  });

  it("settles every item of a call that failed as a whole with that call's error, never rejecting", async () => {
    // Prepare
    const outage = new Error('connection refused');
    const { sender } = recorder();
    const put = turnBatches(
      {
        ...sender,
        many: () => Promise.reject(outage),
      },
      () => NOW,
    );

    // Act
    const outcomes = await Promise.all(['a', 'b'].map((item) => put(item, NOW + 500)));

    // Assess
    expect(outcomes).toEqual([outage, outage]);
  });

  it('fails the items of a call rejected with undefined, which must not read as taken', async () => {
    // Prepare
    const { sender } = recorder();
    const put = turnBatches(
      { ...sender, one: () => Promise.reject(undefined), many: () => Promise.reject(undefined) },
      () => NOW,
    );

    // Act
    const outcomes = await Promise.all([
      ...['a', 'b'].map((item) => put(item, NOW + 500)),
      put('alone', NOW + 5000),
    ]);

    // Assess
    expect(outcomes).toEqual([
      expect.any(WebhookReceiverError),
      expect.any(WebhookReceiverError),
      expect.any(WebhookReceiverError),
    ]);
  });

  it('fails every item of a batch whose sender gave fewer outcomes than items, so none passes for taken', async () => {
    // Prepare
    const { sender } = recorder({ entries: () => [undefined] });
    const put = turnBatches(sender, () => NOW);

    // Act
    const outcomes = await Promise.all(['a', 'b'].map((item) => put(item, NOW + 500)));

    // Assess
    expect(outcomes).toEqual([expect.any(WebhookReceiverError), expect.any(WebhookReceiverError)]);
  });

  it('settles the item of a sender that throws before it returns a promise', async () => {
    // Prepare
    const { sender } = recorder();
    const put = turnBatches(
      {
        ...sender,
        one: () => {
          throw new Error('not even a promise');
        },
      },
      () => NOW,
    );

    // Act
    const outcome = await put('a', NOW + 500);

    // Assess
    expect(outcome).toMatchObject({ message: 'not even a promise' });
  });
});
