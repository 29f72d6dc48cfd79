import { Duration } from 'aws-cdk-lib';
import * as apigatewayv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { webhookPath } from '../../lambda/contract/endpoints.js';
import { createLogGroup, VENDED_LOGS_PREFIX } from '../log-group.js';
import { acknowledgeNagFindings } from '../nag.js';
import { mapHttpApiDomain } from './custom-domain.js';
import { ACCESS_LOG_FORMAT, apiName, type IngressFactory, webhookPaths } from './ingress.js';

/**
 * An API Gateway HTTP API: route `POST /webhook` (or `POST /webhook/<name>` per named endpoint)
 * with payload format 2.0 into the receiver, one `$default` stage throttled by the throttle props
 * and logging access as JSON, and the custom domain of `domainName` mapped to that stage.
 */
export const createHttpApi: IngressFactory = (scope, settings, receiverFunction) => {
  const name = apiName(scope);
  const api = new apigatewayv2.HttpApi(scope, 'Api', {
    apiName: name,
    description: 'Receives signed webhooks from the booking service',
    // The stage is created below, with throttling and access logs, which the default one lacks.
    createDefaultStage: false,
    disableExecuteApiEndpoint: settings.disableDefaultEndpoint,
  });
  // Under /aws/vendedlogs/: API Gateway adds each access log group to the account's CloudWatch
  // Logs resource policy, whose size is capped; near the cap CloudWatch Logs admits the prefix
  // as a whole, and any other name then fails the stage. The API's id makes the name new with
  // each API, so a group kept by an earlier `cdk destroy` never blocks the next deploy.
  const accessLogGroup = createLogGroup(
    scope,
    'AccessLogs',
    settings.logRetention,
    `${VENDED_LOGS_PREFIX}apigateway/${name}/${api.apiId}`,
  );
  const stage = new apigatewayv2.HttpStage(scope, 'ApiStage', {
    httpApi: api,
    stageName: '$default',
    autoDeploy: true,
    throttle: { rateLimit: settings.throttleRateLimit, burstLimit: settings.throttleBurstLimit },
    accessLogSettings: {
      destination: new apigatewayv2.LogGroupLogDestination(accessLogGroup),
      format: ACCESS_LOG_FORMAT,
    },
  });
  // With named endpoints, one invoke permission for the whole API rather than one per route: each
  // is a statement of the function's resource policy, which is limited to 20 KB.
  const integration = new HttpLambdaIntegration('ReceiverIntegration', receiverFunction, {
    payloadFormatVersion: apigatewayv2.PayloadFormatVersion.VERSION_2_0,
    scopePermissionToRoute: settings.endpoints.length === 0,
  });
  for (const path of webhookPaths(settings)) {
    for (const route of api.addRoutes({
      path: `/${path}`,
      methods: [apigatewayv2.HttpMethod.POST],
      integration,
    })) {
      acknowledgeNagFindings(route, {
        pack: 'AwsSolutions',
        rule: 'AwsSolutions-APIG4',
        reason:
          'AwsSolutions-APIG4 (authorization): the booking service cannot present IAM, JWT or Lambda-authorizer credentials, so the HMAC signature in its Service-Signature header, verified by the receiver function, is the authentication.',
      });
    }
  }
  const customDomain =
    settings.customDomain && mapHttpApiDomain(scope, settings.customDomain, api, stage);
  return {
    url: `${customDomain?.baseUrl ?? api.apiEndpoint}${webhookPath()}`,
    serverErrors: api.metricServerError({
      period: Duration.minutes(5),
      statistic: cloudwatch.Stats.SUM,
    }),
    api,
    accessLogGroup,
    ...(customDomain && { customDomain: customDomain.domain }),
  };
};
