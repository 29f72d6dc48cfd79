import { CfnOutput, Stack, type StackProps, Token } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { InvalidConfigurationError } from './configuration-error.js';
import { WebhookReceiver, type WebhookReceiverProps } from './webhook-receiver.js';

/** Thrown when {@link ReceiverStackProps} hold a value the stack cannot use. */
export class InvalidReceiverStackPropsError extends InvalidConfigurationError {}

/**
 * Properties of {@link ReceiverStack}: the receiver's options, with the secret given by ARN. The
 * stack deploys the example consumer unless `consumer` is false, and with it the idempotency table
 * unless `idempotency` is false.
 */
export interface ReceiverStackProps
  extends StackProps,
    Omit<WebhookReceiverProps, 'secret' | 'existingQueue'> {
  /**
   * Complete ARN of an existing secret holding the signing key, as the Secrets Manager console
   * shows it (ending in `-` and six random characters), so the receiver's role names that exact
   * ARN.
   * @default - the stack creates a secret with a random placeholder
   */
  readonly secretArn?: string;
}

/** A complete secret ARN: a partial one (without the random suffix) would need a wildcard grant. */
const COMPLETE_SECRET_ARN =
  /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/;

/**
 * The deployable webhook receiver: a {@link WebhookReceiver} with the example consumer, and the
 * outputs a user needs after `cdk deploy`. It adds no cdk-nag acknowledgement of its own: the
 * construct carries them.
 */
export class ReceiverStack extends Stack {
  /** The receiver this stack deploys. */
  public readonly receiver: WebhookReceiver;

  constructor(scope: Construct, id: string, props: ReceiverStackProps = {}) {
    super(scope, id, {
      description: 'Receiver for signed booking-service webhooks: front door -> Lambda -> SQS',
      ...props,
    });
    const { secretArn, ...receiverProps } = props;
    const consumer = props.consumer ?? true;
    this.receiver = new WebhookReceiver(this, 'WebhookReceiver', {
      consumer,
      idempotency: consumer,
      ...receiverProps,
      ...(secretArn === undefined ? {} : { secret: this.importSecret(secretArn) }),
    });
    this.addOutputs();
  }

  private importSecret(secretArn: string): secretsmanager.ISecret {
    if (!Token.isUnresolved(secretArn) && !COMPLETE_SECRET_ARN.test(secretArn)) {
      throw new InvalidReceiverStackPropsError(
        `secretArn ${JSON.stringify(secretArn)} is not a complete Secrets Manager secret ARN: copy the ARN from the console, it ends in the secret name, '-' and six random characters`,
      );
    }
    return secretsmanager.Secret.fromSecretCompleteArn(this, 'ImportedSigningKey', secretArn);
  }

  private addOutputs(): void {
    const { receiver } = this;
    new CfnOutput(this, 'WebhookUrl', {
      value: receiver.url,
      description: 'Register this URL with the booking service',
    });
    new CfnOutput(this, 'QueueUrl', {
      value: receiver.queue.queueUrl,
      description: 'Queue of verified webhooks',
    });
    new CfnOutput(this, 'QueueArn', { value: receiver.queue.queueArn });
    if (receiver.deadLetterQueue) {
      new CfnOutput(this, 'DeadLetterQueueUrl', {
        value: receiver.deadLetterQueue.queueUrl,
        description: 'Messages the consumer failed on 5 times',
      });
    }
    if (receiver.idempotencyTable) {
      new CfnOutput(this, 'IdempotencyTableName', {
        value: receiver.idempotencyTable.tableName,
        description: "The example consumer's idempotency records (one per processed booking)",
      });
    }
    new CfnOutput(this, 'SecretArn', {
      value: receiver.secret.secretArn,
      description: 'Put the signing key issued by the booking service into this secret',
    });
  }
}
