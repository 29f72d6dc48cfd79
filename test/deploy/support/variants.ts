import { App, Stack } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { buildApp } from '../../../lib/app.js';
import { WebhookReceiver } from '../../../lib/webhook-receiver.js';
import type { WebhookReceiverProps } from '../../../lib/webhook-receiver-props.js';
import { appProps, SKIP_BUNDLING } from '../../lib/cdk-app.js';
import type { CfnTemplate } from '../../support/deployed-template.js';
import { DEPLOY_ACCOUNT, DEPLOY_REGION } from '../../support/deployed-template.js';
import type { ExternalKeys } from './runtime-calls.js';

/** A secret that exists before the deployment, encrypted with {@link SECRET_KEY_ARN} where a variant says so. */
export const EXISTING_SECRET_ARN = `arn:aws:secretsmanager:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:secret:booking-webhook-key-AbC123`;
/** A customer managed key outside the stack. */
export const SECRET_KEY_ARN = `arn:aws:kms:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
/** A queue that exists before the deployment. */
export const EXISTING_QUEUE_ARN = `arn:aws:sqs:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:bookings`;
/** The customer managed key of {@link EXISTING_QUEUE_ARN} in the variants that encrypt it. */
export const QUEUE_KEY_ARN = `arn:aws:kms:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:key/5678efgh-56ef-78ab-90cd-567890abcdef`;

/** 100 endpoint names of 32 characters each, the scale the README promises. */
export const HUNDRED_ENDPOINTS = Array.from({ length: 100 }, (_, index) =>
  `endpoint-${String(index).padStart(3, '0')}-${'abcdefghijklmnopqrstuvwxyz'}`.slice(0, 32),
);

/** The ARN of an existing secret for endpoint `name`. */
export function endpointSecretArn(name: string): string {
  return `arn:aws:secretsmanager:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:secret:hooks/${name}-XyZ789`;
}

/** One way a user can configure a deployment. */
export interface Variant {
  readonly name: string;
  /** CDK context `cdk synth -c` gives `buildApp` (cdk.json's context is always there). */
  readonly context?: Readonly<Record<string, unknown>>;
  /** Or: the construct's props in a stack of its own, for what only the construct can say. */
  readonly construct?: (stack: Stack) => WebhookReceiverProps;
  /** The KMS keys of the imported secrets and queues. */
  readonly externalKeys?: ExternalKeys;
}

/** Every variant the README documents, by name. */
export const VARIANTS = {
  httpApi: { name: 'http-api (defaults: consumer, idempotency)', context: {} },
  restApi: { name: 'rest-api', context: { ingress: 'rest-api' } },
  functionUrl: { name: 'function-url', context: { ingress: 'function-url' } },
  endpoints: {
    name: 'three endpoints, one an existing secret by ARN with its key (secretKmsKeyArn.eu)',
    context: {
      endpoints: 'eu,us,apac',
      'secretArn.eu': endpointSecretArn('eu'),
      'secretKmsKeyArn.eu': SECRET_KEY_ARN,
    },
    externalKeys: { [endpointSecretArn('eu')]: SECRET_KEY_ARN },
  },
  hundredEndpoints: {
    name: '100 endpoints of 32 characters',
    context: { endpoints: HUNDRED_ENDPOINTS.join(',') },
  },
  hundredEndpointsByArn: {
    name: '100 endpoints of 32 characters, each an existing secret by ARN',
    context: {
      endpoints: HUNDRED_ENDPOINTS.join(','),
      ...Object.fromEntries(
        HUNDRED_ENDPOINTS.map((name) => [`secretArn.${name}`, endpointSecretArn(name)]),
      ),
    },
  },
  existingSecret: { name: 'existing secret by ARN', context: { secretArn: EXISTING_SECRET_ARN } },
  secretKeyByContext: {
    name: 'customer managed secret key (secretKmsKeyArn)',
    context: { secretArn: EXISTING_SECRET_ARN, secretKmsKeyArn: SECRET_KEY_ARN },
    externalKeys: { [EXISTING_SECRET_ARN]: SECRET_KEY_ARN },
  },
  secretKeyByConstruct: {
    name: 'customer managed secret key (construct, imported secret)',
    construct: (stack) => ({
      secret: Secret.fromSecretAttributes(stack, 'Imported', {
        secretCompleteArn: EXISTING_SECRET_ARN,
        encryptionKey: Key.fromKeyArn(stack, 'SecretKey', SECRET_KEY_ARN),
      }),
    }),
    externalKeys: { [EXISTING_SECRET_ARN]: SECRET_KEY_ARN },
  },
  secretKeyInStack: {
    name: 'customer managed secret key (construct, key and secret in the stack)',
    construct: (stack) => ({
      // A Secret's optional secretFullArn is `string | undefined`, ISecret's is optional.
      secret: new Secret(stack, 'OwnSecret', {
        encryptionKey: new Key(stack, 'OwnKey'),
      }) as ISecret,
    }),
  },
  queueWithKey: {
    name: 'existing queue imported with its key, consumer',
    construct: (stack) => ({
      consumer: true,
      existingQueue: Queue.fromQueueAttributes(stack, 'Existing', {
        queueArn: EXISTING_QUEUE_ARN,
        keyArn: QUEUE_KEY_ARN,
      }),
    }),
    externalKeys: { [EXISTING_QUEUE_ARN]: QUEUE_KEY_ARN },
  },
  queueWithoutKey: {
    name: 'existing queue imported without a key (SSE-SQS), consumer',
    construct: (stack) => ({
      consumer: true,
      existingQueue: Queue.fromQueueArn(stack, 'Existing', EXISTING_QUEUE_ARN),
    }),
  },
  queueKeyInStack: {
    name: 'queues encrypted with the key CDK creates (queueProps encryption: KMS), consumer',
    construct: () => ({ consumer: true, queueProps: { encryption: QueueEncryption.KMS } }),
  },
  fifo: { name: 'FIFO', context: { fifo: 'true' } },
  noConsumer: { name: 'no consumer', context: { consumer: 'false' } },
  noIdempotency: { name: 'consumer without idempotency', context: { idempotency: 'false' } },
} as const satisfies Record<string, Variant>;

/** A variant's stack as synthesized. */
export interface SynthesizedVariant {
  readonly template: CfnTemplate;
  /** The cloud assembly's directory (bundles in `asset.<hash>/`). */
  readonly directory: string;
  /** The stack's warnings (CDK annotations), as `cdk synth` prints them. */
  readonly warnings: readonly string[];
}

/**
 * Synthesizes a variant as `cdk synth` would: context variants through `buildApp` (cdk-nag
 * included), construct variants in a stack of their own.
 * @param variant - the variant
 * @param bundle - bundle the functions with esbuild (slow; only where their code is run)
 */
export function synthesizeVariant(variant: Variant, { bundle = false } = {}): SynthesizedVariant {
  const context = bundle ? {} : SKIP_BUNDLING;
  let app: App;
  let stackName: string;
  if (variant.construct === undefined) {
    app = buildApp(appProps({ ...context, ...variant.context }));
    stackName = 'WebhookReceiver';
  } else {
    app = new App(appProps(context));
    const stack = new Stack(app, 'ConstructStack');
    new WebhookReceiver(stack, 'WebhookReceiver', variant.construct(stack));
    stackName = stack.stackName;
  }
  const assembly = app.synth();
  const stack = assembly.getStackByName(stackName);
  return {
    template: stack.template,
    directory: assembly.directory,
    warnings: stack.messages
      .filter((message) => message.level === 'warning')
      .map((message) => String(message.entry.data)),
  };
}
