import { Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct, IConstruct } from 'constructs';
import { acknowledgeNagFindings } from '../nag.js';

/** Id of the stack-level singleton: every REST API receiver in the stack shares it. */
const SINGLETON_ID = 'WebhookReceiverApiGatewayAccount';

/**
 * The region's API Gateway account setting with the role that lets REST API stages write
 * execution logs. It is one setting per account and region, so a stack holds it once however
 * many receivers use it.
 */
export function apiGatewayAccount(scope: Construct): IConstruct {
  const stack = Stack.of(scope);
  const existing = stack.node.tryFindChild(SINGLETON_ID);
  if (existing) {
    return existing;
  }
  const role = new iam.Role(stack, `${SINGLETON_ID}Role`, {
    assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
    description: 'Lets API Gateway write REST API execution logs in this account and region',
    managedPolicies: [
      iam.ManagedPolicy.fromAwsManagedPolicyName(
        'service-role/AmazonAPIGatewayPushToCloudWatchLogs',
      ),
    ],
  });
  acknowledgeNagFindings(role, {
    pack: 'AwsSolutions',
    rule: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    reason:
      "AwsSolutions-IAM4 (AWS managed policy): API Gateway's account-wide logging role uses AmazonAPIGatewayPushToCloudWatchLogs, the policy AWS documents and maintains for exactly this role.",
  });
  return new apigateway.CfnAccount(stack, SINGLETON_ID, { cloudWatchRoleArn: role.roleArn });
}
