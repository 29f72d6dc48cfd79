import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { expect } from 'vitest';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import type { WebhookReceiverProps } from '../../lib/webhook-receiver-props.js';
import { templateTestApp } from './cdk-app.js';

/** A complete secret ARN, as the Secrets Manager console shows it. */
export const IMPORTED_SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:booking-webhook-key-AbC123';

/** One receiver in its own stack, synthesized without bundling. */
export interface Synthesized {
  readonly stack: Stack;
  readonly receiver: WebhookReceiver;
  readonly template: Template;
  /** Logical id of a construct's CloudFormation resource, as the template names it. */
  readonly id: (construct: IConstruct | undefined) => string;
  /** The template's resource of a construct. */
  readonly resource: (construct: IConstruct | undefined) => {
    Type: string;
    // biome-ignore lint/suspicious/noExplicitAny: read as the synthesized template holds them
    Properties: Record<string, any>;
  };
}

/** Synthesizes a stack holding one {@link WebhookReceiver} built from `props`. */
export function synthesize(props: (stack: Stack) => WebhookReceiverProps): Synthesized {
  const stack = new Stack(templateTestApp(), 'TestStack');
  const receiver = new WebhookReceiver(stack, 'Receiver', props(stack));
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct | undefined): string => {
    expect(construct).toBeDefined();
    return stack.getLogicalId(construct?.node.defaultChild as CfnElement);
  };
  return {
    stack,
    receiver,
    template,
    id,
    resource: (construct) => template.toJSON().Resources[id(construct)],
  };
}

/** Every IAM statement of the template's inline policies. */
export function policyStatements(template: Template): Array<Record<string, unknown>> {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement,
  );
}

/** The statements of the inline policy attached to a role. */
export function statementsOfRole(template: Template, roleId: string): unknown[] {
  const policies = Object.values(
    template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: roleId }] },
    }),
  );
  expect(policies).toHaveLength(1);
  return policies[0]?.Properties.PolicyDocument.Statement;
}

/** The statement that lets a function write to its own log group, and nothing else of CloudWatch Logs. */
export function writeLogsStatement(logGroupId: string) {
  return {
    Effect: 'Allow',
    Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
  };
}

/** The statement that lets a consumer read and write idempotency records on one table, item by item only. */
export function idempotencyRecordsStatement(tableArn: unknown) {
  return {
    Effect: 'Allow',
    Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    Resource: tableArn,
  };
}
