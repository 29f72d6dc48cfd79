import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../../lambda/consumer/index.js';
import { lambdaContext } from '../../support/api-gateway-events.js';
import { BOOKER, bookingPayload, phpJsonEncode } from '../../support/booking.js';
import { type CapturedOutput, captureOutput } from '../../support/capture-output.js';
import { sqsEvent } from '../../support/sqs-events.js';

const FIFO_ARN = 'arn:aws:sqs:eu-west-1:123456789012:webhook-events.fifo';
const GOOD = phpJsonEncode(bookingPayload());
const BAD = JSON.stringify(bookingPayload({ event_at: 'yesterday' }));

describe('Function: handler (consumer)', () => {
  let output: CapturedOutput;
  beforeEach(() => {
    output = captureOutput();
  });
  afterEach(() => output.restore());

  it('reports no failures when every record is a valid booking', async () => {
    // Prepare
    const event = sqsEvent([{ body: GOOD }, { body: GOOD }]);

    // Act
    const response = await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(output.logs().filter(({ message }) => message === 'Booking received')).toHaveLength(2);
  });

  it('logs the receiver request_id next to the booking id', async () => {
    // Prepare
    const event = sqsEvent([
      {
        body: GOOD,
        messageId: 'm1',
        attributes: { event: 'event_booked', request_id: 'req-7f3a' },
      },
    ]);

    // Act
    await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(output.logs()).toContainEqual(
      expect.objectContaining({
        message: 'Booking received',
        booking_id: '918273',
        request_id: 'req-7f3a',
      }),
    );
  });

  it('counts every record it reports failed in RecordFailed', async () => {
    // Prepare
    const event = sqsEvent([
      { body: GOOD, messageId: 'm1' },
      { body: BAD, messageId: 'm2' },
      { body: 'not json', messageId: 'm3' },
    ]);

    // Act
    await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(output.metricValues()).toEqual([
      { name: 'RecordFailed', value: 2, dimensions: { service: 'webhook-consumer' } },
    ]);
  });

  it('reports only the invalid record so the rest of the batch is not retried', async () => {
    // Prepare
    const event = sqsEvent([
      { body: GOOD, messageId: 'm1' },
      { body: BAD, messageId: 'm2' },
      { body: 'not json', messageId: 'm3' },
      { body: GOOD, messageId: 'm4' },
    ]);

    // Act
    const response = await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(response).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }],
    });
  });

  it('returns every record as failed, rather than throwing, when the whole batch is invalid', async () => {
    // Prepare
    const event = sqsEvent([
      { body: BAD, messageId: 'm1' },
      { body: BAD, messageId: 'm2' },
    ]);

    // Act
    const response = await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: 'm1' },
      { itemIdentifier: 'm2' },
    ]);
  });

  it('stops at the first failure on a FIFO queue and fails the rest to keep the order', async () => {
    // Prepare
    const event = sqsEvent([
      { body: GOOD, messageId: 'm1', queueArn: FIFO_ARN, messageGroupId: '918273' },
      { body: BAD, messageId: 'm2', queueArn: FIFO_ARN, messageGroupId: '918273' },
      { body: GOOD, messageId: 'm3', queueArn: FIFO_ARN, messageGroupId: '918273' },
    ]);

    // Act
    const response = await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: 'm2' },
      { itemIdentifier: 'm3' },
    ]);
  });

  it('acknowledges a verified event of another type, logging its type and counting it', async () => {
    // Prepare
    const cancelled = phpJsonEncode(bookingPayload({ event: 'event_cancelled' }));
    const event = sqsEvent([
      { body: cancelled, messageId: 'm1', attributes: { event: 'event_cancelled' } },
      { body: GOOD, messageId: 'm2', attributes: { event: 'event_booked' } },
    ]);

    // Act
    const response = await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(output.logs()).toContainEqual(
      expect.objectContaining({
        message: 'Skipped: not an event_booked',
        event_type: 'event_cancelled',
      }),
    );
    expect(output.logs().filter(({ message }) => message === 'Booking received')).toHaveLength(1);
    expect(output.metricValues()).toEqual([
      { name: 'EventSkipped', value: 1, dimensions: { service: 'webhook-consumer' } },
    ]);
    expect(output.text()).not.toContain(BOOKER.email);
    expect(output.text()).not.toContain(BOOKER.name);
  });

  it('reads the event type from the body when the record has no event attribute', async () => {
    // Prepare
    const event = sqsEvent([
      { body: JSON.stringify(bookingPayload({ event: 'event_cancelled' })), messageId: 'm1' },
    ]);

    // Act
    const response = await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(output.logs()).toContainEqual(
      expect.objectContaining({ message: 'Skipped: not an event_booked' }),
    );
  });

  it('still fails malformed event_booked records and records that name no event', async () => {
    // Prepare
    const noEvent = JSON.stringify({ ...bookingPayload(), event: undefined });
    const event = sqsEvent([
      { body: BAD, messageId: 'm1', attributes: { event: 'event_booked' } },
      { body: noEvent, messageId: 'm2' },
      { body: 'not json', messageId: 'm3' },
    ]);

    // Act
    const response = await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: 'm1' },
      { itemIdentifier: 'm2' },
      { itemIdentifier: 'm3' },
    ]);
    // Failed, not skipped: none of them is counted in EventSkipped.
    expect(output.metricValues()).toEqual([
      { name: 'RecordFailed', value: 3, dimensions: { service: 'webhook-consumer' } },
    ]);
  });

  it('goes on past a skipped record on a FIFO queue', async () => {
    // Prepare
    const cancelled = phpJsonEncode(bookingPayload({ event: 'event_cancelled' }));
    const event = sqsEvent([
      { body: cancelled, messageId: 'm1', queueArn: FIFO_ARN, messageGroupId: '918273' },
      { body: GOOD, messageId: 'm2', queueArn: FIFO_ARN, messageGroupId: '918273' },
    ]);

    // Act
    const response = await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(output.logs().filter(({ message }) => message === 'Booking received')).toHaveLength(1);
  });

  it('logs booking ids and the failing paths, never the name or e-mail', async () => {
    // Prepare
    const badUser = bookingPayload();
    badUser.data = { ...(badUser.data as object), user: { ...BOOKER, id: BOOKER.email } };
    const event = sqsEvent([
      { body: GOOD, attributes: { dedup_key: 'abc' } },
      { body: JSON.stringify(badUser) },
    ]);

    // Act
    await handler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(output.logs()).toContainEqual(
      expect.objectContaining({
        message: 'Booking received',
        booking_id: '918273',
        dedup_key: 'abc',
      }),
    );
    expect(output.text()).toContain('data.user.id: expected numeric text');
    expect(output.text()).not.toContain(BOOKER.email);
    expect(output.text()).not.toContain(BOOKER.name);
  });
});
