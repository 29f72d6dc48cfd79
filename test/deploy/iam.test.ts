import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CfnTemplate,
  DEPLOY_ACCOUNT,
  DEPLOY_REGION,
  deployedAttribute,
  resolveValue,
  resourcePolicyOf,
  resourcesOfType,
  rolePolicies,
} from '../support/deployed-template.js';
import { type SimulatedRequest, simulate } from '../support/iam-simulator.js';
import { type RuntimeCall, runtimeCalls } from './support/runtime-calls.js';
import {
  EXISTING_QUEUE_ARN,
  QUEUE_KEY_ARN,
  type SynthesizedVariant,
  synthesizeVariant,
  VARIANTS,
  type Variant,
} from './support/variants.js';

// Every AWS call the deployed code makes, derived from the template (each function's environment,
// event source mappings and log group, the keys of its queues and secrets, each front door), run
// through the IAM policy simulator against the template's identity policies, queue policies, key
// policies and Lambda permissions; and what must stay denied.

const OTHER_SECRET_ARN = `arn:aws:secretsmanager:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:secret:other-key-XyZ789`;

/** The verdict on a request, with the caller's identity policies and the resource's policy as deployed. */
function decide(template: CfnTemplate, request: SimulatedRequest): Promise<string> {
  const roleId = request.principal.startsWith('arn:aws:iam::')
    ? request.principal.split('/').pop()
    : undefined;
  const identity = roleId === undefined ? [] : rolePolicies(template, roleId);
  return simulate(request, identity, resourcePolicyOf(template, request.resource));
}

/** Each call that is not allowed, with its verdict. */
async function notAllowed(template: CfnTemplate, calls: readonly RuntimeCall[]): Promise<string[]> {
  const verdicts = await Promise.all(calls.map((call) => decide(template, call.request)));
  return calls
    .map((call, index) => ({ call, verdict: verdicts[index] }))
    .filter(({ verdict }) => verdict !== 'Allowed')
    .map(
      ({ call, verdict }) =>
        `${verdict}: ${call.request.action} on ${call.request.resource} (${call.why})`,
    );
}

/** The roles of the receiver (the function sending to the queue) and the consumer (the one a queue feeds). */
function functionRoles(calls: readonly RuntimeCall[]) {
  const roleOf = (action: string) =>
    calls.find((call) => call.request.action === action)?.request.principal;
  return { receiver: roleOf('sqs:SendMessage'), consumer: roleOf('sqs:ReceiveMessage') };
}

describe.each(Object.values<Variant>(VARIANTS))('IAM as deployed: $name', (variant) => {
  let synthesized: SynthesizedVariant;
  let calls: RuntimeCall[];

  beforeAll(() => {
    synthesized = synthesizeVariant(variant);
    calls = runtimeCalls(synthesized.template, variant.externalKeys);
  });

  it('allows every call the code makes at runtime', async () => {
    // Act
    const refused = await notAllowed(synthesized.template, calls);

    // Assess: the derivation found the calls every deployment makes, and each is allowed.
    const actions = new Set(calls.map((call) => call.request.action));
    for (const action of [
      'sqs:SendMessage',
      'secretsmanager:GetSecretValue',
      'logs:PutLogEvents',
    ]) {
      expect(actions).toContain(action);
    }
    expect(calls.filter((call) => call.functionId === undefined).length).toBeGreaterThan(0);
    expect(refused).toEqual([]);
  });

  it('allows the receiver no ReceiveMessage, no other secret and no key outside its services', async () => {
    // Prepare
    const { template } = synthesized;
    const { receiver } = functionRoles(calls);
    const queue = calls.find((call) => call.request.action === 'sqs:SendMessage')?.request.resource;
    const secretKeys = calls.filter((call) =>
      call.request.context?.['kms:ViaService']?.startsWith('secretsmanager.'),
    );
    expect(receiver).toBeDefined();

    // Act
    const verdicts = await Promise.all([
      decide(template, {
        principal: String(receiver),
        action: 'sqs:ReceiveMessage',
        resource: String(queue),
      }),
      decide(template, {
        principal: String(receiver),
        action: 'sqs:DeleteMessage',
        resource: String(queue),
      }),
      decide(template, {
        principal: String(receiver),
        action: 'secretsmanager:GetSecretValue',
        resource: OTHER_SECRET_ARN,
      }),
      // A secret's key is used through Secrets Manager, never directly.
      ...secretKeys.map((call) =>
        decide(template, {
          principal: call.request.principal,
          action: call.request.action,
          resource: call.request.resource,
        }),
      ),
    ]);

    // Assess
    expect(verdicts.filter((verdict) => verdict === 'Allowed')).toEqual([]);
  });

  it('allows the consumer no Scan, no Query, no SendMessage and no secret', async () => {
    // Prepare
    const { template } = synthesized;
    const { consumer } = functionRoles(calls);
    const hasConsumer = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').length > 0;
    expect(consumer !== undefined).toBe(hasConsumer);
    if (consumer === undefined) return;
    const queue = calls.find((call) => call.request.action === 'sqs:ReceiveMessage')?.request
      .resource;
    const table = calls.find((call) => call.request.action === 'dynamodb:PutItem')?.request
      .resource;
    const secrets = calls
      .filter((call) => call.request.action === 'secretsmanager:GetSecretValue')
      .map((call) => call.request.resource);

    // Act
    const verdicts = await Promise.all([
      decide(template, { principal: consumer, action: 'sqs:SendMessage', resource: String(queue) }),
      ...(table === undefined
        ? []
        : ['dynamodb:Scan', 'dynamodb:Query', 'dynamodb:BatchWriteItem'].map((action) =>
            decide(template, { principal: consumer, action, resource: table }),
          )),
      ...secrets.map((resource) =>
        decide(template, {
          principal: consumer,
          action: 'secretsmanager:GetSecretValue',
          resource,
        }),
      ),
    ]);

    // Assess
    expect(verdicts.length).toBeGreaterThan(secrets.length);
    expect(verdicts.filter((verdict) => verdict === 'Allowed')).toEqual([]);
  });

  it('allows neither function a call on the dead-letter queue, which only the redrive tool reads', async () => {
    // Prepare: the dead-letter queue may share the queue's key, so only SQS's grants keep it apart.
    const { template } = synthesized;
    const roles = Object.values(functionRoles(calls)).filter((role) => role !== undefined);
    const queues = resourcesOfType(template, 'AWS::SQS::Queue');
    const deadLetterQueues = queues
      .map(([, queue]) => queue.Properties?.RedrivePolicy?.deadLetterTargetArn)
      .filter((arn) => arn !== undefined)
      .map((arn) => String(resolveValue(template, arn)));
    expect(deadLetterQueues).toHaveLength(queues.length === 0 ? 0 : 1);

    // Act
    const verdicts = await Promise.all(
      roles.flatMap((principal) =>
        deadLetterQueues.flatMap((resource) =>
          ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage'].map((action) =>
            decide(template, { principal, action, resource }),
          ),
        ),
      ),
    );

    // Assess
    expect(verdicts.filter((verdict) => verdict === 'Allowed')).toEqual([]);
  });

  it('lets only Firehose, for a stream of this account, assume the archive delivery role', async () => {
    // Prepare
    const { template } = synthesized;
    const streams = resourcesOfType(template, 'AWS::KinesisFirehose::DeliveryStream');
    if (streams.length === 0) {
      // A variant without the archive: no role of it may be assumed by Firehose at all.
      const trusts = resourcesOfType(template, 'AWS::IAM::Role').map(([, role]) =>
        JSON.stringify(role.Properties?.AssumeRolePolicyDocument),
      );
      expect(trusts.filter((trust) => trust.includes('firehose.amazonaws.com'))).toEqual([]);
      return;
    }
    const [[streamId, stream] = ['', {}]] = streams;
    const role = String(
      resolveValue(template, stream.Properties?.ExtendedS3DestinationConfiguration?.RoleARN),
    );
    const ownStream = {
      'aws:SourceAccount': DEPLOY_ACCOUNT,
      'aws:SourceArn': deployedAttribute(template, streamId, 'Arn'),
    };
    const otherAccount = '210987654321';
    const assume = (principal: string, context?: Record<string, string>) =>
      decide(template, {
        principal,
        action: 'sts:AssumeRole',
        resource: role,
        ...(context === undefined ? {} : { context }),
      });

    // Act
    const verdicts = {
      ownStream: await assume('firehose.amazonaws.com', ownStream),
      streamOfAnotherAccount: await assume('firehose.amazonaws.com', {
        'aws:SourceAccount': otherAccount,
        'aws:SourceArn': `arn:aws:firehose:${DEPLOY_REGION}:${otherAccount}:deliverystream/theirs`,
      }),
      noSource: await assume('firehose.amazonaws.com'),
      anotherService: await assume('lambda.amazonaws.com', ownStream),
    };

    // Assess
    expect(role).toMatch(/^arn:aws:iam::\d{12}:role\//);
    expect(verdicts).toEqual({
      ownStream: 'Allowed',
      streamOfAnotherAccount: 'ImplicitlyDenied',
      noSource: 'ImplicitlyDenied',
      anotherService: 'ImplicitlyDenied',
    });
  });

  it('lets nobody invoke the functions but their front door and event source', async () => {
    // Prepare
    const { template } = synthesized;
    const functionArns = calls
      .filter((call) => call.functionId === undefined)
      .map((call) => call.request.resource);
    const allFunctions = resourcesOfType(template, 'AWS::Lambda::Function').map(([id]) => id);
    const anotherApi = `arn:aws:execute-api:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:otherapi01/$default/POST/webhook`;

    // Act: plain anonymous invocation, and API Gateway on behalf of an API of someone else.
    const verdicts = await Promise.all(
      allFunctions.flatMap((id) => {
        const resource = `arn:aws:lambda:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:function:${id}`;
        return [
          decide(template, { principal: 'anonymous', action: 'lambda:InvokeFunction', resource }),
          decide(template, {
            principal: 'apigateway.amazonaws.com',
            action: 'lambda:InvokeFunction',
            resource,
            context: { 'aws:SourceArn': anotherApi, 'aws:SourceAccount': DEPLOY_ACCOUNT },
          }),
          decide(template, {
            principal: 'anonymous',
            action: 'lambda:InvokeFunctionUrl',
            resource,
            context: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' },
          }),
        ];
      }),
    );

    // Assess
    expect(functionArns.length).toBeGreaterThan(0);
    expect(verdicts.filter((verdict) => verdict === 'Allowed')).toEqual([]);
  });
});

describe('IAM as deployed: an existing queue imported without its key', () => {
  let synthesized: SynthesizedVariant;

  beforeAll(() => {
    synthesized = synthesizeVariant(VARIANTS.queueWithoutKey);
  });

  it('warns at synth, naming Queue.fromQueueAttributes, and the warning is true: a KMS-encrypted queue would refuse the calls', async () => {
    // Act: the same template, in a world where the queue is encrypted with a customer managed key.
    const calls = runtimeCalls(synthesized.template, { [EXISTING_QUEUE_ARN]: QUEUE_KEY_ARN });
    const refused = await notAllowed(synthesized.template, calls);

    // Assess
    expect(synthesized.warnings.join('\n')).toMatch(/Queue\.fromQueueAttributes/);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((line) => line.includes(QUEUE_KEY_ARN))).toBe(true);
  });
});

describe('IAM as deployed: the derivation', () => {
  it('reads every endpoint secret from the directory of 100 endpoints, and no variable goes unexplained', () => {
    // Prepare
    const { template } = synthesizeVariant(VARIANTS.hundredEndpoints);

    // Act
    const calls = runtimeCalls(template);
    const withUnknownVariable: CfnTemplate = {
      Resources: Object.fromEntries(
        Object.entries(template.Resources).map(([id, resource]) => [
          id,
          resource.Type === 'AWS::Lambda::Function'
            ? {
                ...resource,
                Properties: {
                  ...resource.Properties,
                  Environment: {
                    Variables: { ...resource.Properties?.Environment?.Variables, NEW_TABLE: 'x' },
                  },
                },
              }
            : resource,
        ]),
      ),
    };

    // Assess
    const described = calls.filter(
      (call) => call.request.action === 'secretsmanager:DescribeSecret',
    );
    expect(new Set(described.map((call) => call.request.resource)).size).toBe(100);
    expect(() => runtimeCalls(withUnknownVariable)).toThrow(/NEW_TABLE/);
  });
});
