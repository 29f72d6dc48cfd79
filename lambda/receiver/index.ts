import { loadConfig } from './config.js';
import { createHandler } from './handler.js';

export type { ApiGatewayEvent, ApiGatewayResponse } from './api-gateway.js';
export type { ReceiverHandler } from './handler.js';

/**
 * Lambda entry point of the webhook receiver, for API Gateway REST (payload v1) and HTTP API
 * (payload v2) proxy integrations. Configuration is read and validated here, once per cold
 * start: a bad variable fails the init with a message naming it.
 */
export const handler = createHandler(loadConfig());
