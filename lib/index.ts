/**
 * The package's main entry point (`service-webhook-receiver`): the {@link WebhookReceiver}
 * construct for your own CDK app, and the deployable {@link ReceiverStack} this repository's
 * `cdk deploy` uses. The signature core is `service-webhook-receiver/core`; the example
 * consumer's parser and batch handler are `service-webhook-receiver/consumer`.
 * @module
 */
export { WebhookReceiverError } from '../lambda/core/errors.js';
export type { WebhookReceiverAlarms } from './alarms.js';
export {
  InvalidConfigurationError,
  InvalidWebhookReceiverPropsError,
} from './configuration-error.js';
export type { ServedWebhookEndpoint, WebhookEndpoint } from './endpoints.js';
export {
  INGRESS_KINDS,
  type IngressKind,
  type WebhookReceiverFrontDoorProps,
} from './front-door-props.js';
export {
  InvalidReceiverStackPropsError,
  ReceiverStack,
  type ReceiverStackEndpoint,
  type ReceiverStackProps,
} from './receiver-stack.js';
export { WebhookReceiver } from './webhook-receiver.js';
export type {
  FunctionPropsOverrides,
  WebhookReceiverProps,
} from './webhook-receiver-props.js';
