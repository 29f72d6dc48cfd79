import type { Context } from 'aws-lambda';
import { WebhookReceiverError } from '../lambda/core/errors.js';

/** A handler that completed through Lambda's callback instead of returning a promise. */
export class CallbackCompletionError extends WebhookReceiverError {}

/** Name the local run reports as the function name (it shows up in Powertools log lines). */
const LOCAL_FUNCTION_NAME = 'webhook-receiver-local';

/** Timeout reported by `getRemainingTimeInMillis`, matching a typical API Gateway integration limit. */
const LOCAL_TIMEOUT_MS = 29_000;

/**
 * A Lambda `Context` for invoking a handler in-process, as the Lambda runtime would build it: the
 * request id is shared with the API Gateway event so log lines correlate, and the remaining time
 * counts down from the moment of the call.
 */
export function createLocalContext(requestId: string, startedAt: number = Date.now()): Context {
  const unsupported = (): never => {
    throw new CallbackCompletionError(
      'Callback-style completion is not supported: return a promise from the handler',
    );
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: LOCAL_FUNCTION_NAME,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${LOCAL_FUNCTION_NAME}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${LOCAL_FUNCTION_NAME}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, startedAt + LOCAL_TIMEOUT_MS - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
