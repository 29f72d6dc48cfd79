import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUEUE_NAME } from '../../devkit/local-run.js';
import { QueueJournal, type StoredMessage } from '../../local/queue-journal.js';
import { scratchDir } from '../support/scratch-dir.js';

const dir = scratchDir('queue-journal');

/** An hour's retention for the queue the messages are in. */
const RETENTION = { [QUEUE_NAME]: 3600 };

const message = (messageId: string): StoredMessage => ({
  messageId,
  queueName: QUEUE_NAME,
  body: `{"id":"${messageId}"}`,
  sentTimestamp: Date.now(),
  receiveCount: 0,
});

/** Resolves with the error `afterDurable` calls back with, and whether it called back at once. */
function whenDurable(journal: QueueJournal): { atOnce: boolean; done: Promise<Error | undefined> } {
  let atOnce = true;
  let calledAtOnce = false;
  const done = new Promise<Error | undefined>((resolve) =>
    journal.afterDurable((error) => {
      calledAtOnce = atOnce;
      resolve(error);
    }),
  );
  atOnce = false;
  return {
    get atOnce() {
      return calledAtOnce;
    },
    done,
  };
}

describe('Class: QueueJournal', () => {
  it('calls back at once when every stored message is already flushed', () => {
    // Prepare
    const { journal } = QueueJournal.open(join(dir(), 'idle'), RETENTION);

    // Act
    const waiter = whenDurable(journal);

    // Assess
    expect(waiter.atOnce).toBe(true);
    return journal.close();
  });

  it('calls back only after a flush, for every caller waiting, and the messages are there at the next open', async () => {
    // Prepare
    const folder = join(dir(), 'group');
    const { journal } = QueueJournal.open(folder, RETENTION);

    // Act: stores while a flush is under way join the next one.
    journal.put(message('m1'));
    const first = whenDurable(journal);
    journal.put(message('m2'));
    journal.put(message('m3'));
    const second = whenDurable(journal);
    const third = whenDurable(journal);
    const errors = await Promise.all([first.done, second.done, third.done]);

    // Assess
    expect([first.atOnce, second.atOnce, third.atOnce]).toEqual([false, false, false]);
    expect(errors).toEqual([undefined, undefined, undefined]);
    expect(whenDurable(journal).atOnce).toBe(true);
    await journal.close();
    const reopened = QueueJournal.open(folder, RETENTION);
    expect(reopened.messages.map(({ messageId }) => messageId)).toEqual(['m1', 'm2', 'm3']);
    await reopened.journal.close();
  });

  it('closes after the flush under way, keeping every message written', async () => {
    // Prepare
    const folder = join(dir(), 'close');
    const { journal } = QueueJournal.open(folder, RETENTION);
    journal.put(message('m1'));
    const waiter = whenDurable(journal);

    // Act
    await journal.close();

    // Assess
    expect(await waiter.done).toBeUndefined();
    expect(readFileSync(join(folder, 'journal.ndjson'), 'utf8')).toContain('"messageId":"m1"');
  });

  it('erases the journal and counts the messages it held: not those deleted, nor those past retention', async () => {
    // Prepare
    const folder = join(dir(), 'erase');
    const { journal } = QueueJournal.open(folder, RETENTION);
    journal.put(message('kept-1'));
    journal.put(message('kept-2'));
    journal.put(message('consumed'));
    journal.deleted('consumed');
    journal.put({ ...message('expired'), sentTimestamp: Date.now() - 3_601_000 });
    await whenDurable(journal).done;
    await journal.close();

    // Act
    const discarded = QueueJournal.erase(folder, RETENTION);
    const reopened = QueueJournal.open(folder, RETENTION);

    // Assess
    expect(discarded).toBe(2);
    expect(reopened.messages).toEqual([]);
    await reopened.journal.close();
  });
});
