/**
 * The front-door props of `WebhookReceiverProps`: how calls reach the receiver, under which
 * name, from which sources and how fast.
 * @module
 */
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { INGRESS_KINDS } from '../lambda/contract/settings.js';

export { INGRESS_KINDS };

/** How calls reach the receiver function: one of {@link INGRESS_KINDS}. */
export type IngressKind = (typeof INGRESS_KINDS)[number];

/** The front door of a `WebhookReceiver`: how calls reach the receiver function. */
export interface WebhookReceiverFrontDoorProps {
  /**
   * The front door senders POST to: `http-api` (API Gateway HTTP API, payload format 2.0),
   * `rest-api` (API Gateway REST API, the only one that takes a WAF web ACL) or `function-url`
   * (a Lambda function URL, the cheapest, throttled by `reservedConcurrency`).
   * @default 'http-api'
   */
  readonly ingress?: IngressKind;

  /**
   * ARN of a regional WAFv2 web ACL to associate with the REST API stage. Only with
   * `ingress: 'rest-api'`.
   * @default - no web ACL
   */
  readonly webAclArn?: string;

  /**
   * Your own domain for the webhook URL, e.g. `hooks.example.com`: a regional API Gateway custom
   * domain (TLS 1.2 at least, IPv4 and IPv6) mapped to the stage, so {@link WebhookReceiver.url}
   * is `https://<domainName>/webhook` and stays the same across stacks, regions and front-door
   * changes. Needs `certificate`. With `http-api` or `rest-api` only: a function URL has no
   * custom domain. Without `hostedZoneId`, point a CNAME for the name at the domain's
   * `regionalDomainName` yourself.
   * @default - the generated URL
   */
  readonly domainName?: string;

  /**
   * The ACM certificate of `domainName`, in the stack's region (a regional custom domain). Only
   * with `domainName`.
   * @default - none
   */
  readonly certificate?: acm.ICertificate;

  /**
   * Route 53 hosted zone holding `domainName`: the construct creates the alias records (A and
   * AAAA) to the custom domain there. With `hostedZoneName`.
   * @default - no records: point the name at the custom domain yourself
   */
  readonly hostedZoneId?: string;

  /**
   * The name of the zone of `hostedZoneId`, e.g. `example.com`; `domainName` must be in it.
   * @default - no records
   */
  readonly hostedZoneName?: string;

  /**
   * Turn off the API's generated `execute-api` endpoint, so calls reach the receiver through the
   * custom domain only (else the generated URL is a way around the domain's TLS policy and
   * mapping). Only with `domainName`.
   * @default - true with `domainName`
   */
  readonly disableDefaultEndpoint?: boolean;

  /**
   * The only source addresses let in: IPv4 and IPv6 ranges in CIDR notation (a bare address is a
   * range of one), e.g. the ranges the sender publishes. With `rest-api`, a resource policy
   * denies every other source, so API Gateway refuses them without invoking the receiver; with
   * `http-api` and `function-url` the receiver refuses them (`ALLOWED_SOURCE_IPS`) with 403
   * `source_not_allowed` before it reads the body or loads a key. Only as good as the sender's
   * published list.
   * @default - every source
   */
  readonly allowedSourceIps?: readonly string[];

  /**
   * Reserved concurrency of the receiver function: the throttle of `function-url`, which has no
   * API stage (Lambda then also caps the function at 10 requests a second per unit). None by
   * default because Lambda refuses a reservation that leaves the account fewer than 100
   * unreserved, and a new account's concurrency quota starts below that: a default would fail
   * the deploy there. Unreserved, the receiver shares the account's concurrency (1,000 by
   * default), which turns away no catch-up the capacity model runs, but then only the account
   * bounds a flood of forged calls to a function URL (docs/capacity.md gives the figures and the
   * smallest value that still takes the catch-up). Not with
   * `receiverFunctionProps.reservedConcurrentExecutions`.
   * @default - none reserved
   */
  readonly reservedConcurrency?: number;

  /**
   * Steady-state request rate the API stage accepts, in requests per second; calls above it are
   * answered 429 by API Gateway (the `apiThrottles` alarm). Not with `function-url`. The default
   * takes the booking service catching up after an hour's outage at 200 calls a second while new
   * bookings keep coming (210 a second) with room to spare, and bounds what a flood of forged
   * calls costs per hour (README, docs/capacity.md). API Gateway applies it to each route (each
   * method of a REST API): with named endpoints, each endpoint gets this rate.
   * @default 300
   */
  readonly throttleRateLimit?: number;

  /**
   * Burst of requests the API stage accepts above the steady rate. Not with `function-url`. The
   * default is two seconds of the default rate, so a sender resuming with a clump of retries is
   * not answered 429 while its average stays under the rate.
   * @default 600
   */
  readonly throttleBurstLimit?: number;
}
