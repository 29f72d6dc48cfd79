import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct, IConstruct } from 'constructs';
import { acknowledgeNagFindings } from '../nag.js';

/** The setting each stack already holds: the first REST API receiver creates it, the others reuse it. */
const ACCOUNT_OF_STACK = new WeakMap<Stack, IConstruct>();

/**
 * The region's API Gateway account setting with the role that lets REST API stages write
 * execution logs. It is one setting per account and region, so a stack holds it once however
 * many receivers use it: inside the first receiver that needs it. Both are kept when the stack
 * is deleted, as CDK's own `cloudWatchRoleRemovalPolicy` does by default: every REST API of the
 * account and region logs through that role, so deleting it with this stack would silently stop
 * their execution and access logs.
 */
export function apiGatewayAccount(scope: Construct): IConstruct {
  const stack = Stack.of(scope);
  const existing = ACCOUNT_OF_STACK.get(stack);
  if (existing) {
    return existing;
  }
  const role = new iam.Role(scope, 'ApiGatewayLoggingRole', {
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
  const account = new apigateway.CfnAccount(scope, 'ApiGatewayAccount', {
    cloudWatchRoleArn: role.roleArn,
  });
  role.applyRemovalPolicy(RemovalPolicy.RETAIN);
  account.applyRemovalPolicy(RemovalPolicy.RETAIN);
  ACCOUNT_OF_STACK.set(stack, account);
  return account;
}
