import { Names } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as apigatewayv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { WEBHOOK_ROUTE, webhookPath } from '../../lambda/contract/endpoints.js';
import type { ReceiverSettings } from '../receiver-settings.js';

/**
 * The paths (without the leading `/`) the front door routes to the receiver: `webhook`, or
 * `webhook/<name>` for each named endpoint.
 */
export function webhookPaths(settings: ReceiverSettings): string[] {
  return settings.endpoints.length === 0
    ? [WEBHOOK_ROUTE]
    : settings.endpoints.map(({ name }) => webhookPath(name).slice(1));
}

/**
 * The name of the API in `scope`: the stack's name, the construct's path and a hash of it, so
 * that two receivers of one account never share one (REST API metrics, and so the 5xx alarm, are
 * keyed by the name), and the console shows which deployment an API belongs to.
 */
export function apiName(scope: Construct): string {
  return Names.uniqueResourceName(scope, { maxLength: 128, separator: '-' });
}

/**
 * The access log line of both APIs (JSON): the request id (the receiver's `api_request_id`), the
 * caller, the status (quoted: the `apiThrottles` metric filter compares it as text), the latency
 * and API Gateway's error messages. Left out as nobody reads them: the request time (CloudWatch
 * stamps every event), the method and route (one POST route per endpoint; the receiver's line
 * names the endpoint), the response length (the receiver's answers are small fixed bodies) and
 * the integration status (a failed invocation shows in the status and the integration error).
 * That keeps the line about half as long as one with them; `npm run bench -- cost` meters it as
 * CloudWatch Logs bills it, and bench/results.md gives its bytes and price.
 */
export const ACCESS_LOG_FORMAT = apigateway.AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    sourceIp: '$context.identity.sourceIp',
    status: '$context.status',
    responseLatency: '$context.responseLatency',
    integrationErrorMessage: '$context.integrationErrorMessage',
    errorMessage: '$context.error.message',
  }),
);

/** A front door in front of the receiver function, whatever its kind. */
export interface Ingress {
  /**
   * The full URL to POST webhooks to; with named endpoints, the prefix of their URLs (each is this
   * URL, `/` and the endpoint's name).
   */
  readonly url: string;
  /** Calls the front door answered 5xx (Sum): deliveries the sender must retry. */
  readonly serverErrors: cloudwatch.IMetric;
  /** The API, for `http-api` and `rest-api`. */
  readonly api?: apigateway.RestApi | apigatewayv2.HttpApi;
  /** The function URL, for `function-url`. */
  readonly functionUrl?: lambda.FunctionUrl;
  /** The custom domain in front of the API, with `domainName`. */
  readonly customDomain?: apigateway.DomainName | apigatewayv2.DomainName;
  /** The API's access log group (function URLs have no access log). */
  readonly accessLogGroup?: logs.LogGroup;
}

/** Builds one kind of front door for the receiver function, inside the construct's scope. */
export type IngressFactory = (
  scope: Construct,
  settings: ReceiverSettings,
  receiverFunction: lambda.IFunction,
) => Ingress;
