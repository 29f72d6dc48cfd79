import { Duration } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { WEBHOOK_ROUTE, webhookPath } from '../../lambda/contract/endpoints.js';
import { createLogGroup } from '../log-group.js';
import { acknowledgeNagFindings } from '../nag.js';
import { apiGatewayAccount } from './api-gateway-account.js';
import { mapRestApiDomain } from './custom-domain.js';
import { ACCESS_LOG_FORMAT, apiName, type IngressFactory } from './ingress.js';

/**
 * The REST API's one resource for every named endpoint. API Gateway's control plane takes about
 * five resource or method creations a second per account, and CloudFormation creates all the
 * resources it may at once: one resource and method per endpoint failed deploys with "Too Many
 * Requests" at a hundred endpoints. The receiver reads the name from the path and answers 404
 * for one it does not serve.
 */
const ENDPOINT_PATH = `${WEBHOOK_ROUTE}/{endpoint}`;

/**
 * A regional REST API: `POST /webhook` (or `POST /webhook/{endpoint}`, one method for every named
 * endpoint) proxied to the receiver, a throttled stage with JSON access logs and error-only
 * execution logs, X-Ray when tracing is on, the web ACL of `webAclArn` associated with the stage
 * when given, a resource policy admitting only `allowedSourceIps` when given, and the custom
 * domain of `domainName`.
 */
export const createRestApi: IngressFactory = (scope, settings, receiverFunction) => {
  const accessLogGroup = createLogGroup(scope, 'AccessLogs', settings.logRetention);
  const api = new apigateway.RestApi(scope, 'Api', {
    restApiName: apiName(scope),
    description: 'Receives signed webhooks from the booking service',
    endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
    disableExecuteApiEndpoint: settings.disableDefaultEndpoint,
    ...(settings.allowedSourceIps && { policy: sourceAllowlistPolicy(settings.allowedSourceIps) }),
    // The account-wide logging role is a stack singleton (below), not one per API.
    cloudWatchRole: false,
    deployOptions: {
      throttlingRateLimit: settings.throttleRateLimit,
      throttlingBurstLimit: settings.throttleBurstLimit,
      accessLogDestination: new apigateway.LogGroupLogDestination(accessLogGroup),
      accessLogFormat: ACCESS_LOG_FORMAT,
      // No per-method detailed metrics: the alarms and the dashboard read the API's own metrics
      // (by ApiName), and CloudWatch bills each detailed metric of each method.
      metricsEnabled: false,
      // Errors only, and never request bodies: payloads carry the booking user's name and e-mail.
      loggingLevel: apigateway.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      tracingEnabled: settings.tracing,
    },
  });
  if (settings.allowedSourceIps) {
    // A changed resource policy takes effect with the next deployment of the stage.
    api.latestDeployment?.addToLogicalId({ allowedSourceIps: settings.allowedSourceIps });
  }
  if (settings.apiGatewayCloudWatchRole) {
    // Execution logs need the account's logging role in place before the stage turns them on.
    api.deploymentStage.node.addDependency(apiGatewayAccount(scope));
  }
  // With named endpoints, one invoke permission for the whole API, as the HTTP API has.
  const integration = new apigateway.LambdaIntegration(receiverFunction, {
    proxy: true,
    scopePermissionToMethod: settings.endpoints.length === 0,
  });
  const path = settings.endpoints.length === 0 ? WEBHOOK_ROUTE : ENDPOINT_PATH;
  api.root.resourceForPath(path).addMethod('POST', integration);
  // RestApi always adds an output with the stage's base URL; registering that URL instead of
  // the /webhook one would send every delivery to a 403.
  api.node.tryRemoveChild('Endpoint');
  if (settings.webAclArn !== undefined) {
    new wafv2.CfnWebACLAssociation(scope, 'WebAclAssociation', {
      resourceArn: api.deploymentStage.stageArn,
      webAclArn: settings.webAclArn,
    });
  } else {
    acknowledgeNagFindings(api.deploymentStage, {
      pack: 'AwsSolutions',
      rule: 'AwsSolutions-APIG3',
      reason:
        'AwsSolutions-APIG3 (WAF): forged calls cost one short Lambda invocation before the signature check rejects them and stage throttling caps their rate, so a web ACL would add a fixed monthly charge for little gain; set webAclArn where policy requires one.',
    });
  }
  acknowledgeNagFindings(
    api,
    {
      pack: 'AwsSolutions',
      rule: 'AwsSolutions-APIG2',
      reason:
        'AwsSolutions-APIG2 (request validation): the receiver function validates each request itself because it must see the exact raw body to check the HMAC signature and answer 400/401 with the documented bodies, which an API Gateway validator would pre-empt with its own.',
    },
    {
      pack: 'AwsSolutions',
      rule: 'AwsSolutions-APIG4',
      reason:
        'AwsSolutions-APIG4 (authorization): the booking service cannot present IAM, Cognito or token credentials, so the HMAC signature in its Service-Signature header, verified by the receiver function, is the authentication.',
    },
    {
      pack: 'AwsSolutions',
      rule: 'AwsSolutions-COG4',
      reason:
        'AwsSolutions-COG4 (Cognito authorizer): the caller is the booking service, not a signed-in user, and it authenticates with the HMAC signature the receiver function verifies.',
    },
  );
  if (!settings.tracing) {
    acknowledgeNagFindings(api.deploymentStage, {
      pack: 'Serverless',
      rule: 'Serverless-APIGWXrayEnabled',
      reason:
        'Serverless-APIGWXrayEnabled (X-Ray): tracing costs more per call than the rest of the receiver, so it is off by default and turned on with the tracing prop when needed.',
    });
  }
  const customDomain = settings.customDomain && mapRestApiDomain(scope, settings.customDomain, api);
  return {
    url: customDomain ? `${customDomain.baseUrl}${webhookPath()}` : api.urlForPath(webhookPath()),
    serverErrors: api.metricServerError({
      period: Duration.minutes(5),
      statistic: cloudwatch.Stats.SUM,
    }),
    api,
    accessLogGroup,
    ...(customDomain && { customDomain: customDomain.domain }),
  };
};

/**
 * The REST API's resource policy for `allowedSourceIps`: invoking is denied from every other
 * source (an explicit deny wins over any allow), and allowed to everyone else, since with a
 * resource policy API Gateway refuses what no statement allows.
 */
function sourceAllowlistPolicy(ranges: readonly string[]): iam.PolicyDocument {
  const invoke = {
    principals: [new iam.AnyPrincipal()],
    actions: ['execute-api:Invoke'],
    resources: ['execute-api:/*'],
  };
  return new iam.PolicyDocument({
    statements: [
      new iam.PolicyStatement({
        ...invoke,
        sid: 'DenySourcesOutsideAllowedSourceIps',
        effect: iam.Effect.DENY,
        conditions: { NotIpAddress: { 'aws:SourceIp': [...ranges] } },
      }),
      new iam.PolicyStatement({ ...invoke, sid: 'AllowInvoke', effect: iam.Effect.ALLOW }),
    ],
  });
}
