import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { webhookPath } from '../../lambda/contract/endpoints.js';
import type { IngressFactory } from './ingress.js';

/**
 * A Lambda function URL on the receiver, open to the internet (auth type NONE: the signature is
 * the authentication). For NONE, aws-cdk-lib adds both resource-policy statements AWS requires
 * for public invocation: `lambda:InvokeFunctionUrl` with
 * `lambda:FunctionUrlAuthType: NONE` and `lambda:InvokeFunction` with
 * `lambda:InvokedViaFunctionUrl: true`. Its throttle is the function's reserved concurrency.
 */
export const createFunctionUrl: IngressFactory = (scope, _settings, receiverFunction) => {
  const functionUrl = new lambda.FunctionUrl(scope, 'FunctionUrl', {
    function: receiverFunction,
    authType: lambda.FunctionUrlAuthType.NONE,
  });
  return {
    // A function URL serves every path; /webhook keeps the registered URL alike across front doors.
    url: `${functionUrl.url}${webhookPath().slice(1)}`,
    serverErrors: receiverFunction.metric('Url5xxCount', {
      period: Duration.minutes(5),
      statistic: cloudwatch.Stats.SUM,
    }),
    functionUrl,
  };
};
