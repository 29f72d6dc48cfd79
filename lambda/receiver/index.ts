import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** Response shape shared by API Gateway REST (v1) and HTTP API (v2) proxy integrations. */
export interface ReceiverResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Lambda entry point for the webhook receiver (work in progress: verification and forwarding
 * land in the next commits; until then every call is answered 503 so nothing is acknowledged).
 */
export const handler = async (
  _event: APIGatewayProxyEvent | APIGatewayProxyEventV2,
  _context: Context,
): Promise<ReceiverResponse> => ({
  statusCode: 503,
  headers: { 'content-type': 'application/json', 'retry-after': '30' },
  body: JSON.stringify({ error: 'service_unavailable' }),
});
