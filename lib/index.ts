/**
 * The package's main entry point (`service-webhook-receiver`): the {@link WebhookReceiver}
 * construct for your own CDK app, and the deployable {@link ReceiverStack} this repository's
 * `cdk deploy` uses. The signature core is `service-webhook-receiver/core`; the example
 * consumer's parser and batch handler are `service-webhook-receiver/consumer`.
 * @module
 */
export { WebhookReceiverError } from '../lambda/core/errors.js';
export { InvalidConfigurationError } from './configuration-error.js';
export type { ServedWebhookEndpoint, WebhookEndpoint } from './endpoints.js';
export type { FunctionPropsOverrides } from './lambda-function.js';
export {
  InvalidReceiverStackPropsError,
  ReceiverStack,
  type ReceiverStackEndpoint,
  type ReceiverStackProps,
} from './receiver-stack.js';
export {
  INGRESS_KINDS,
  type IngressKind,
  InvalidWebhookReceiverPropsError,
  WebhookReceiver,
  type WebhookReceiverAlarms,
  type WebhookReceiverProps,
} from './webhook-receiver.js';
