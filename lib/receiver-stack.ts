import { CfnOutput, Stack, type StackProps, Token, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { WebhookReceiver, type WebhookReceiverProps } from './webhook-receiver.js';

/** Thrown when {@link ReceiverStackProps} hold a value the stack cannot use. */
export class InvalidReceiverStackPropsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidReceiverStackPropsError';
  }
}

/** Properties of {@link ReceiverStack}: the receiver's options, with the secret given by ARN. */
export interface ReceiverStackProps extends StackProps, Omit<WebhookReceiverProps, 'secret'> {
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
 * The deployable webhook receiver: a {@link WebhookReceiver}, the outputs a user needs after
 * `cdk deploy`, and the cdk-nag findings this design accepts, each with its reason.
 */
export class ReceiverStack extends Stack {
  /** The receiver this stack deploys. */
  public readonly receiver: WebhookReceiver;

  constructor(scope: Construct, id: string, props: ReceiverStackProps = {}) {
    super(scope, id, {
      description: 'Receiver for signed booking-service webhooks: API Gateway -> Lambda -> SQS',
      ...props,
    });
    const { secretArn, ...receiverProps } = props;
    this.receiver = new WebhookReceiver(this, 'WebhookReceiver', {
      ...receiverProps,
      ...(secretArn === undefined ? {} : { secret: this.importSecret(secretArn) }),
    });
    this.addOutputs();
    this.acknowledgeNagFindings(secretArn === undefined);
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
    new CfnOutput(this, 'DeadLetterQueueUrl', {
      value: receiver.deadLetterQueue.queueUrl,
      description: 'Messages the consumer failed on 5 times',
    });
    new CfnOutput(this, 'SecretArn', {
      value: receiver.secret.secretArn,
      description: 'Put the signing key issued by the booking service into this secret',
    });
  }

  /**
   * The cdk-nag findings this design accepts, each acknowledged on the narrowest construct with the
   * reason (`AwsSolutions::` names the cdk-nag plugin, so the report lists them as suppressed).
   */
  private acknowledgeNagFindings(secretCreated: boolean): void {
    const { api, secret } = this.receiver;
    Validations.of(api).acknowledge(
      {
        id: 'AwsSolutions::AwsSolutions-APIG2',
        reason:
          'AwsSolutions-APIG2 (request validation): the receiver function validates each request itself because it must see the exact raw body to check the HMAC signature and answer 400/401 with the documented bodies, which an API Gateway validator would pre-empt with its own.',
      },
      {
        id: 'AwsSolutions::AwsSolutions-APIG4',
        reason:
          'AwsSolutions-APIG4 (authorization): the booking service cannot present IAM, Cognito or token credentials, so the HMAC signature in its Service-Signature header, verified by the receiver function, is the authentication.',
      },
      {
        id: 'AwsSolutions::AwsSolutions-COG4',
        reason:
          'AwsSolutions-COG4 (Cognito authorizer): the caller is the booking service, not a signed-in user, and it authenticates with the HMAC signature the receiver function verifies.',
      },
    );
    Validations.of(api.deploymentStage).acknowledge({
      id: 'AwsSolutions::AwsSolutions-APIG3',
      reason:
        'AwsSolutions-APIG3 (WAF): forged calls cost one short Lambda invocation before the signature check rejects them and stage throttling caps their rate, so a web ACL would add a fixed monthly charge for little gain; associate one with the stage where policy requires it.',
    });
    const cloudWatchRole = api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "AwsSolutions-IAM4 (AWS managed policy): API Gateway's account-wide logging role uses AmazonAPIGatewayPushToCloudWatchLogs, the policy AWS documents and maintains for exactly this role.",
      });
    }
    if (secretCreated) {
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions::AwsSolutions-SMG4',
        reason:
          'AwsSolutions-SMG4 (rotation): the signing key is issued by the booking service, so a rotation Lambda could not generate a valid one; rotate by staging the new key (the receiver accepts AWSPENDING, and AWSPREVIOUS during the grace period).',
      });
    }
  }
}
