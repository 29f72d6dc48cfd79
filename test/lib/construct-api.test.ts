import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { InvalidWebhookReceiverPropsError } from '../../lib/receiver-settings.js';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import { templateTestApp } from './cdk-app.js';
import { synthesize } from './synthesize.js';

const EXISTING_QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:bookings';

describe('Class: WebhookReceiver, its API beyond the settings', () => {
  it.each(['queueProps', 'deadLetterQueueProps'] as const)(
    'refuses %s with existingQueue, naming both, instead of ignoring it',
    (name) => {
      // Prepare
      const stack = new Stack(templateTestApp(), 'Conflict');

      const existingQueue = Queue.fromQueueArn(stack, 'Existing', EXISTING_QUEUE_ARN);

      // Act
      const build = () =>
        new WebhookReceiver(stack, 'Receiver', {
          existingQueue,
          [name]: { retentionPeriod: Duration.days(4) },
        });

      // Assess
      expect(build).toThrow(
        new InvalidWebhookReceiverPropsError(
          `${name} cannot be used with existingQueue: the construct creates no queue to apply them to; configure your queue where it is defined`,
        ),
      );
    },
  );

  it("gives the idempotency table a removal policy of its own, not the queue's", () => {
    // Act
    const { template } = synthesize(() => ({
      consumer: true,
      idempotency: true,
      queueProps: { removalPolicy: RemovalPolicy.RETAIN },
      idempotencyTableRemovalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    }));

    // Assess
    template.hasResource('AWS::SQS::Queue', { DeletionPolicy: 'Retain' });
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'RetainExceptOnCreate' });
  });

  it('refuses idempotencyTableRemovalPolicy without idempotency', () => {
    // Prepare
    const stack = new Stack(templateTestApp(), 'NoTable');

    // Act
    const build = () =>
      new WebhookReceiver(stack, 'Receiver', {
        idempotencyTableRemovalPolicy: RemovalPolicy.RETAIN,
      });

    // Assess
    expect(build).toThrow('idempotencyTableRemovalPolicy needs idempotency: true');
  });

  it("applies receiverFunctionProps over the receiver's, keeping the variables it writes", () => {
    // Act: reservedConcurrentExecutions is refused only beside reservedConcurrency.
    const { template, receiver, id } = synthesize(() => ({
      receiverFunctionProps: {
        timeout: Duration.seconds(20),
        reservedConcurrentExecutions: 50,
        environment: { MY_LAYER_SETTING: 'on', SIGNATURE_TOLERANCE_SECONDS: '5' },
      },
    }));

    // Assess
    const fn = template.toJSON().Resources[id(receiver.receiverFunction)];
    expect(fn.Properties.Timeout).toBe(20);
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(50);
    expect(fn.Properties.Environment.Variables.MY_LAYER_SETTING).toBe('on');
    expect(fn.Properties.Environment.Variables.SIGNATURE_TOLERANCE_SECONDS).toBe('300');
  });
});
