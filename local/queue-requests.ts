/**
 * The calls the embedded queue refuses before `local-aws-sqs` sees them: those it reads in a way
 * that throws outside its own error handling, or that make it allocate without bound. Each is
 * answered 400 in the protocol the call used, as SQS answers a call it cannot parse.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The content type of SQS's JSON protocol; `local-aws-sqs` reads any other body as a query call. */
export const SQS_JSON = 'application/x-amz-json-1.0';

/**
 * Largest list index a query-protocol call may name (`Entry.<n>`, `AttributeName.<n>`): SQS's
 * largest lists hold 10 entries. `local-aws-sqs` builds an array as long as the index, so a
 * 17-byte body naming index 99999999 made it allocate a hundred million entries.
 */
const MAX_QUERY_LIST_INDEX = 100;

/** Most dotted parts a query-protocol name has (`MessageAttribute.1.Value.StringValue`: 4). */
const MAX_QUERY_NAME_PARTS = 8;

// A part of a query-protocol name: a parameter name, or a list index from 1.
const QUERY_NAME_PART = /^(?:[A-Za-z][A-Za-z0-9]*|[1-9]\d{0,2})$/;

// AmazonSQS.<Operation>, as the SDK sends it.
const SQS_TARGET = /^AmazonSQS\.[A-Za-z]+$/;

/** Why the embedded queue refuses a call, in its protocol's error answer. */
export interface QueueCallRefusal {
  readonly contentType: string;
  readonly body: string;
}

/**
 * Why the embedded queue refuses a call before `local-aws-sqs` reads it, or `undefined` when
 * the call may go on: a JSON-protocol call must name an operation in `X-Amz-Target` and carry a
 * JSON object; a query-protocol call may not name a list index beyond {@link MAX_QUERY_LIST_INDEX}.
 *
 * @param headers - the call's headers
 * @param body - its whole body
 */
export function queueCallRefusal(
  headers: IncomingHttpHeaders,
  body: Buffer,
): QueueCallRefusal | undefined {
  if (headers['content-type'] === SQS_JSON) {
    if (!SQS_TARGET.test(String(headers['x-amz-target'] ?? ''))) {
      return jsonRefusal(
        'com.amazon.coral.service#UnknownOperationException',
        'a JSON call names its operation in X-Amz-Target, e.g. AmazonSQS.SendMessage',
      );
    }
    return isJsonObject(body)
      ? undefined
      : jsonRefusal(
          'com.amazon.coral.service#SerializationException',
          'the body is not a JSON object',
        );
  }
  const refusal = queryNameRefusal(body.toString('latin1'));
  return refusal === undefined
    ? undefined
    : {
        contentType: 'text/xml',
        body: `<?xml version="1.0"?><ErrorResponse><Error><Type>Sender</Type><Code>MalformedQueryString</Code><Message>${refusal}</Message></Error></ErrorResponse>`,
      };
}

function jsonRefusal(type: string, message: string): QueueCallRefusal {
  return { contentType: SQS_JSON, body: JSON.stringify({ __type: type, message }) };
}

function isJsonObject(body: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Why the names of a query-protocol body are refused, or `undefined`. `local-aws-sqs` walks a
 * name's dotted parts into the decoded call without checking them: a part `__proto__` wrote to
 * every object's prototype in `npm start`, a number (as `Number` reads it: ` 9`, `1e8`, `0x9`)
 * sized an array, and each part is a level of recursion. So each part is a parameter name or a
 * list index from 1 to {@link MAX_QUERY_LIST_INDEX}, at most {@link MAX_QUERY_NAME_PARTS} of them.
 */
function queryNameRefusal(form: string): string | undefined {
  for (const pair of form.split('&')) {
    if (pair === '') continue;
    const parts = (pair.split('=', 1)[0] ?? '').split('.');
    if (parts.length > MAX_QUERY_NAME_PARTS) {
      return `a parameter name has at most ${MAX_QUERY_NAME_PARTS} parts`;
    }
    for (const part of parts) {
      if (!QUERY_NAME_PART.test(part) || Number(part) > MAX_QUERY_LIST_INDEX) {
        return `a parameter name is made of names and list indexes from 1 to ${MAX_QUERY_LIST_INDEX}`;
      }
    }
  }
  return undefined;
}
