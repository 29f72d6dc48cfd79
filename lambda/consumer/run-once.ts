import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context, SQSRecord } from 'aws-lambda';
import { endpointOf } from './booking-event.js';
import type { IdempotencySettings } from './config.js';

/** What makes two queue messages copies of one delivery. */
export interface DeliveryKey {
  /** The receiver's `dedup_key` attribute, or on a FIFO queue the `MessageDeduplicationId`. */
  readonly dedupKey: string;
  /** The `endpoint` attribute when the message has one: the same booking sent to two endpoints is two deliveries. */
  readonly endpoint?: string;
}

/**
 * The record's {@link DeliveryKey}: the receiver sets `dedup_key` on standard queues and the same
 * hash as `MessageDeduplicationId` on FIFO queues. Undefined for a message that has neither (one
 * from another producer): it cannot be recognised as a copy.
 *
 * @param record - the SQS record
 */
export function deliveryKeyOf(record: SQSRecord): DeliveryKey | undefined {
  const dedupKey =
    record.messageAttributes.dedup_key?.stringValue ?? record.attributes.MessageDeduplicationId;
  if (!dedupKey) return undefined;
  const endpoint = endpointOf(record);
  return endpoint === undefined ? { dedupKey } : { dedupKey, endpoint };
}

/** How {@link RunOnce} ended: the work ran, or a record showed it had already run. */
export type RunOnceOutcome = 'processed' | 'duplicate';

/**
 * Runs `work` for a delivery unless it already ran. Rejects with the work's error (and leaves no
 * record, so a retry runs it again), or with `IdempotencyAlreadyInProgressError` when another
 * attempt holds the delivery right now.
 */
export type RunOnce = (key: DeliveryKey, work: () => Promise<void>) => Promise<RunOnceOutcome>;

/** Suppresses repeated deliveries across invocations. */
export interface Deduplicator {
  /**
   * The {@link RunOnce} for one batch. Copies within the batch wait for each other, so the later
   * copy finds the first one completed instead of failing on its in-progress record.
   *
   * @param context - the invocation's context: an in-progress record expires with it
   */
  forBatch(context: Context): RunOnce;
}

/**
 * A {@link Deduplicator} on the Powertools Idempotency utility with its DynamoDB persistence
 * layer: one record per delivery key, written in progress before the work and completed after
 * it, kept for the configured TTL.
 *
 * @param settings - the table and the TTL
 */
export function dynamoDbDeduplicator(settings: IdempotencySettings): Deduplicator {
  const config = new IdempotencyConfig({ expiresAfterSeconds: settings.ttlSeconds });
  const runWork = makeIdempotent(
    async (_key: DeliveryKey, work: () => Promise<void>): Promise<void> => work(),
    {
      persistenceStore: new DynamoDBPersistenceLayer({ tableName: settings.tableName }),
      config,
      // Only the key is hashed into the record's id; the work closure is not data.
      dataIndexArgument: 0,
    },
  );
  return {
    forBatch(context) {
      config.registerLambdaContext(context);
      const inBatch = new Map<string, Promise<unknown>>();
      return async (key, work) => {
        let ran = false;
        const id = JSON.stringify(key);
        const attempt = (inBatch.get(id) ?? Promise.resolve())
          .catch(() => undefined)
          .then(() =>
            runWork(key, async () => {
              ran = true;
              await work();
            }),
          );
        inBatch.set(id, attempt);
        await attempt;
        return ran ? 'processed' : 'duplicate';
      };
    },
  };
}
