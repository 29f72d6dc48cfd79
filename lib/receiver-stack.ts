import { Annotations, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import {
  type EndpointContextProp,
  endpointContextKey,
  endpointIdSuffix,
  endpointOutputKey,
  STACK_OUTPUTS,
} from '../lambda/contract/endpoints.js';
import type { ArnSetting } from '../lambda/contract/setting-kinds.js';
import { SETTINGS } from '../lambda/contract/settings.js';
import { InvalidConfigurationError } from './configuration-error.js';
import type { WebhookEndpoint } from './endpoints.js';
import { checkArnRegion, checkedValue } from './setting-checks.js';
import { WebhookReceiver } from './webhook-receiver.js';
import type { WebhookReceiverProps } from './webhook-receiver-props.js';

/** Thrown when {@link ReceiverStackProps} hold a value the stack cannot use. */
export class InvalidReceiverStackPropsError extends InvalidConfigurationError {}

/**
 * Properties of {@link ReceiverStack}: the receiver's options, with the secret given by ARN. The
 * stack deploys the example consumer unless `consumer` is false, and with it the idempotency table
 * unless `idempotency` is false; it archives every answered call unless `archive` is false.
 */
export interface ReceiverStackProps
  extends StackProps,
    Omit<
      WebhookReceiverProps,
      'secret' | 'existingQueue' | 'endpoints' | 'certificate' | 'archiveEncryptionKey'
    > {
  /**
   * ARN of the ACM certificate of `domainName`, in the stack's region (the construct's
   * `certificate`). Only with `domainName`, which needs it.
   * @default - none
   */
  readonly certificateArn?: string;

  /**
   * Complete ARN of an existing secret holding the signing key, as the Secrets Manager console
   * shows it (ending in `-` and six random characters), so the receiver's role names that exact
   * ARN. Not with `endpoints`.
   * @default - the stack creates a secret with a random placeholder
   */
  readonly secretArn?: string;

  /**
   * ARN of the customer managed KMS key encrypting the secret of `secretArn` (context
   * `secretKmsKeyArn`): the receiver's role may then decrypt it through Secrets Manager. Only with
   * `secretArn`.
   * @default - the secret is encrypted with the AWS managed key `aws/secretsmanager`
   */
  readonly secretKmsKeyArn?: string;

  /**
   * ARN of a customer managed KMS key for the archive bucket (context `archiveKmsKeyArn`; the
   * construct's `archiveEncryptionKey`): Firehose may use it through S3 only, and whoever runs
   * `npm run replay` needs `kms:Decrypt` on it. Not with `archive: false`.
   * @default - S3-managed keys (SSE-S3)
   */
  readonly archiveKmsKeyArn?: string;

  /**
   * Several endpoints, one key each (the construct's `endpoints`, with secrets given by ARN).
   * The stack then outputs `WebhookUrl<Name>` and `SecretArn<Name>` per endpoint in place of
   * `WebhookUrl` and `SecretArn`, while those fit CloudFormation's 200 outputs (up to 97
   * endpoints); beyond, `EndpointUrlPrefix` and `EndpointDirectoryArn`, with a synth warning.
   * @default - one endpoint, `POST /webhook`
   */
  readonly endpoints?: readonly ReceiverStackEndpoint[];
}

/** A named endpoint of {@link ReceiverStack}. */
export interface ReceiverStackEndpoint extends Omit<WebhookEndpoint, 'secret'> {
  /**
   * Complete ARN of an existing secret holding this endpoint's key (context `secretArn.<name>`).
   * @default - the stack creates a secret with a random placeholder for this endpoint
   */
  readonly secretArn?: string;

  /**
   * ARN of the customer managed KMS key encrypting this endpoint's secret (context
   * `secretKmsKeyArn.<name>`). Only with `secretArn`.
   * @default - the AWS managed key `aws/secretsmanager`
   */
  readonly secretKmsKeyArn?: string;
}

/** CloudFormation's limit of outputs per stack. */
export const MAX_OUTPUTS = 200;

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
    const {
      secretArn,
      secretKmsKeyArn,
      endpoints,
      certificateArn,
      archiveKmsKeyArn,
      ...receiverProps
    } = props;
    if (secretArn !== undefined && endpoints !== undefined) {
      throw new InvalidReceiverStackPropsError(
        'secretArn cannot be used with endpoints: give each endpoint its secretArn (context secretArn.<name>)',
      );
    }
    if (archiveKmsKeyArn !== undefined && props.archive === false) {
      throw new InvalidReceiverStackPropsError(
        'archiveKmsKeyArn needs the archive, which archive=false turns off',
      );
    }
    const consumer = props.consumer ?? true;
    this.receiver = new WebhookReceiver(this, 'WebhookReceiver', {
      consumer,
      idempotency: consumer,
      archive: true,
      ...receiverProps,
      ...this.importSigningKey(undefined, 'ImportedSigningKey', secretArn, secretKmsKeyArn),
      ...(endpoints === undefined
        ? {}
        : { endpoints: endpoints.map((endpoint) => this.importEndpointSecret(endpoint)) }),
      ...this.importCertificate(props.domainName, certificateArn),
      ...(archiveKmsKeyArn === undefined
        ? {}
        : {
            archiveEncryptionKey: kms.Key.fromKeyArn(
              this,
              'ArchiveKey',
              this.checkedArn(SETTINGS.archiveKmsKeyArn, archiveKmsKeyArn),
            ),
          }),
    });
    this.addOutputs(props);
  }

  /** `certificate` from `certificateArn`, which goes with `domainName` both ways. */
  private importCertificate(
    domainName: string | undefined,
    certificateArn: string | undefined,
  ): { certificate?: acm.ICertificate } {
    if ((domainName === undefined) !== (certificateArn === undefined)) {
      throw new InvalidReceiverStackPropsError(
        domainName === undefined
          ? 'certificateArn needs domainName'
          : `domainName needs certificateArn: the ARN of an ACM certificate for ${domainName} in the stack's region`,
      );
    }
    if (certificateArn === undefined) return {};
    const arn = this.checkedArn(SETTINGS.certificateArn, certificateArn);
    return { certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', arn) };
  }

  private importEndpointSecret({
    secretArn,
    secretKmsKeyArn,
    ...endpoint
  }: ReceiverStackEndpoint): WebhookEndpoint {
    return {
      ...endpoint,
      ...this.importSigningKey(
        endpoint.name,
        `ImportedSigningKey${endpointIdSuffix(endpoint.name)}`,
        secretArn,
        secretKmsKeyArn,
      ),
    };
  }

  /**
   * `secret` from `secretArn` (`secretArn.<name>`), with the KMS key of `secretKmsKeyArn`
   * (`secretKmsKeyArn.<name>`), which needs it; nothing when neither is given.
   * @param endpointName - the endpoint whose context keys these are; `undefined` for the single one
   */
  private importSigningKey(
    endpointName: string | undefined,
    id: string,
    secretArn: string | undefined,
    kmsKeyArn: string | undefined,
  ): { secret?: secretsmanager.ISecret } {
    const contextKey = (prop: EndpointContextProp) =>
      endpointName === undefined ? prop : endpointContextKey(prop, endpointName);
    const secretKey = contextKey('secretArn');
    const kmsKey = contextKey('secretKmsKeyArn');
    if (secretArn === undefined) {
      if (kmsKeyArn === undefined) return {};
      throw new InvalidReceiverStackPropsError(
        `${kmsKey} needs ${secretKey}: the key encrypts a secret you give by ARN; a secret the stack creates uses the AWS managed key`,
      );
    }
    return {
      secret: secretsmanager.Secret.fromSecretAttributes(this, id, {
        secretCompleteArn: this.checkedArn(SETTINGS.secretArn, secretArn, secretKey),
        ...(kmsKeyArn === undefined
          ? {}
          : {
              encryptionKey: kms.Key.fromKeyArn(
                this,
                `${id}Key`,
                this.checkedArn(SETTINGS.secretKmsKeyArn, kmsKeyArn, kmsKey),
              ),
            }),
      }),
    };
  }

  /**
   * An ARN prop checked with its row (its form, and its region against the stack's when both are
   * known), in the message naming `name`, its context key.
   */
  private checkedArn(row: ArnSetting, arn: string, name: string = row.prop): string {
    const error = InvalidReceiverStackPropsError;
    const checked = checkedValue(row, arn, error, name);
    checkArnRegion(this, row, checked, error, name);
    return checked;
  }

  private addOutputs({ domainName, hostedZoneId }: ReceiverStackProps): void {
    const { receiver } = this;
    new CfnOutput(this, STACK_OUTPUTS.queueUrl, {
      value: receiver.queue.queueUrl,
      description: 'Queue of verified webhooks',
    });
    new CfnOutput(this, 'QueueArn', { value: receiver.queue.queueArn });
    if (receiver.deadLetterQueue) {
      new CfnOutput(this, STACK_OUTPUTS.deadLetterQueueUrl, {
        value: receiver.deadLetterQueue.queueUrl,
        description: 'Messages the consumer failed on 5 times',
      });
    }
    if (receiver.consumer) {
      new CfnOutput(this, STACK_OUTPUTS.consumerLogGroupName, {
        value: receiver.consumer.logGroup.logGroupName,
        description: "The example consumer's log group (npm run smoke waits for its booking here)",
      });
    }
    if (receiver.idempotencyTable) {
      new CfnOutput(this, 'IdempotencyTableName', {
        value: receiver.idempotencyTable.tableName,
        description: "The example consumer's idempotency records (one per processed booking)",
      });
    }
    if (receiver.archiveBucket) {
      new CfnOutput(this, STACK_OUTPUTS.archiveBucketName, {
        value: receiver.archiveBucket.bucketName,
        description: 'Archived calls (personal data), read by npm run replay',
      });
    }
    const { customDomain } = receiver;
    if (customDomain !== undefined && hostedZoneId === undefined) {
      new CfnOutput(this, 'CustomDomainTarget', {
        value:
          customDomain instanceof apigateway.DomainName
            ? customDomain.domainNameAliasDomainName
            : customDomain.regionalDomainName,
        description: `Point a CNAME (or alias) for ${domainName} at this name`,
      });
    }
    // With endpoints there is no single URL or secret: an output of the /webhook prefix would be
    // a URL to register that answers every call with 404.
    if (receiver.secret !== undefined) {
      this.addEndpointOutputs(undefined, receiver.url, receiver.secret);
    }
    const outputs = this.node.children.filter((child) => child instanceof CfnOutput).length;
    if (outputs + 2 * receiver.endpoints.length <= MAX_OUTPUTS) {
      for (const { name, url, secret } of receiver.endpoints) {
        this.addEndpointOutputs(name, url, secret);
      }
    } else if (receiver.endpointDirectory !== undefined) {
      this.addEndpointDirectoryOutputs(receiver.url, receiver.endpointDirectory);
    }
  }

  /**
   * `EndpointUrlPrefix` and `EndpointDirectoryArn`, in place of two outputs per endpoint when
   * those would pass CloudFormation's limit of {@link MAX_OUTPUTS}, with a synth warning saying so.
   */
  private addEndpointDirectoryOutputs(url: string, directory: secretsmanager.ISecret): void {
    const { endpointUrlPrefix, endpointDirectoryArn } = STACK_OUTPUTS;
    new CfnOutput(this, endpointUrlPrefix, {
      value: url,
      description: 'Register <this URL>/<endpoint name> for each endpoint with the booking service',
    });
    new CfnOutput(this, endpointDirectoryArn, {
      value: directory.secretArn,
      description:
        "The endpoint directory: its value maps each endpoint's name to the ARN of the secret to put its signing key into",
    });
    Annotations.of(this).addWarningV2(
      'service-webhook-receiver:endpointOutputs',
      `${this.receiver.endpoints.length} endpoints would need ${2 * this.receiver.endpoints.length} outputs WebhookUrl<Name> and SecretArn<Name>, past CloudFormation's limit of ${MAX_OUTPUTS} outputs per stack: the stack outputs ${endpointUrlPrefix} (an endpoint's URL is <prefix>/<name>) and ${endpointDirectoryArn} (the secret listing each endpoint's secret ARN) instead; npm run rotate-secret -- --endpoint <name> reads it.`,
    );
  }

  /** `WebhookUrl` and `SecretArn`, or `WebhookUrl<Name>` and `SecretArn<Name>` of an endpoint. */
  private addEndpointOutputs(
    name: string | undefined,
    url: string,
    secret: secretsmanager.ISecret,
  ): void {
    const ofEndpoint = name === undefined ? '' : ` of endpoint ${name}`;
    const outputKey = (output: typeof STACK_OUTPUTS.webhookUrl | typeof STACK_OUTPUTS.secretArn) =>
      name === undefined ? output : endpointOutputKey(output, name);
    new CfnOutput(this, outputKey(STACK_OUTPUTS.webhookUrl), {
      value: url,
      description: `Register this URL${ofEndpoint} with the booking service`,
    });
    new CfnOutput(this, outputKey(STACK_OUTPUTS.secretArn), {
      value: secret.secretArn,
      description: `Put the signing key${ofEndpoint} issued by the booking service into this secret`,
    });
  }
}
