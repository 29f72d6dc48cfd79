import type { IngressKind } from '../webhook-receiver-props.js';
import { createFunctionUrl } from './function-url.js';
import { createHttpApi } from './http-api.js';
import type { IngressFactory } from './ingress.js';
import { createRestApi } from './rest-api.js';

/** The factory of each front door, by the name the `ingress` prop and context key use. */
export const INGRESS_FACTORIES: Record<IngressKind, IngressFactory> = {
  'http-api': createHttpApi,
  'rest-api': createRestApi,
  'function-url': createFunctionUrl,
};
