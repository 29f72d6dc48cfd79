import { deployedValue } from '../lib/deployed-value.js';

/** The account a simulated deployment goes to. */
export const DEPLOY_ACCOUNT = '123456789012';
/** The region a simulated deployment goes to. */
export const DEPLOY_REGION = 'eu-west-1';

/** One resource of a synthesized CloudFormation template. */
export interface TemplateResource {
  readonly Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: read as the synthesized template holds them
  readonly Properties?: Record<string, any>;
}

/** A synthesized CloudFormation template, as far as these helpers read it. */
export interface CfnTemplate {
  readonly Resources: Readonly<Record<string, TemplateResource>>;
  readonly Outputs?: Readonly<Record<string, { readonly Value: unknown }>>;
}

/**
 * What a resource's `Ref` (no attribute) or `Fn::GetAtt` gives, or `undefined` to keep the
 * deployed value {@link deployedAttribute} makes up.
 */
export type PhysicalOverride = (logicalId: string, attribute?: string) => string | undefined;

const PSEUDO_PARAMETERS: Readonly<Record<string, string>> = {
  'AWS::Region': DEPLOY_REGION,
  'AWS::AccountId': DEPLOY_ACCOUNT,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'WebhookReceiver',
};

/**
 * The value a deployed resource gives for `Ref` or an attribute, as the service documents it,
 * with names made from the logical id (CloudFormation's generated names differ, but are as
 * distinct): queue URL and ARN, secret ARN, table name and ARN, function name and ARN, log group
 * ARN (`…:*`), role and key ARNs, API ids.
 * @param template - the template holding the resource
 * @param logicalId - its logical id, or a pseudo parameter
 * @param attribute - the `Fn::GetAtt` attribute; none for `Ref`
 */
export function deployedAttribute(
  template: CfnTemplate,
  logicalId: string,
  attribute?: string,
): string {
  const pseudo = PSEUDO_PARAMETERS[logicalId];
  if (pseudo !== undefined) return pseudo;
  const resource = template.Resources[logicalId];
  if (resource === undefined) throw new Error(`${logicalId} is not in the template`);
  const props = resource.Properties ?? {};
  const arn = (service: string, rest: string, region = DEPLOY_REGION) =>
    `arn:aws:${service}:${region}:${DEPLOY_ACCOUNT}:${rest}`;
  const named = (key: string) => (typeof props[key] === 'string' ? props[key] : logicalId);
  switch (resource.Type) {
    case 'AWS::SQS::Queue': {
      const name = props.QueueName ?? `${logicalId}${props.FifoQueue === true ? '.fifo' : ''}`;
      if (attribute === 'Arn') return arn('sqs', name);
      if (attribute === 'QueueName') return name;
      return `https://sqs.${DEPLOY_REGION}.amazonaws.com/${DEPLOY_ACCOUNT}/${name}`;
    }
    case 'AWS::SecretsManager::Secret':
      return arn('secretsmanager', `secret:${named('Name')}-AbC123`);
    case 'AWS::DynamoDB::Table':
      return attribute === 'Arn'
        ? arn('dynamodb', `table/${named('TableName')}`)
        : named('TableName');
    case 'AWS::Lambda::Function':
      return attribute === 'Arn'
        ? arn('lambda', `function:${named('FunctionName')}`)
        : named('FunctionName');
    case 'AWS::Logs::LogGroup':
      return attribute === 'Arn'
        ? arn('logs', `log-group:${named('LogGroupName')}:*`)
        : named('LogGroupName');
    case 'AWS::IAM::Role':
      return attribute === 'Arn' ? `arn:aws:iam::${DEPLOY_ACCOUNT}:role/${logicalId}` : logicalId;
    case 'AWS::IAM::ManagedPolicy':
      return `arn:aws:iam::${DEPLOY_ACCOUNT}:policy/${logicalId}`;
    case 'AWS::KMS::Key':
      return attribute === 'Arn' ? arn('kms', `key/${logicalId}`) : logicalId;
    case 'AWS::ApiGateway::Stage':
    case 'AWS::ApiGatewayV2::Stage':
      return named('StageName');
    case 'AWS::KinesisFirehose::DeliveryStream':
      return attribute === 'Arn'
        ? arn('firehose', `deliverystream/${named('DeliveryStreamName')}`)
        : named('DeliveryStreamName');
    case 'AWS::SNS::Topic':
      return arn('sns', logicalId);
    case 'AWS::ApiGatewayV2::Api':
    case 'AWS::ApiGateway::RestApi':
      return attribute === undefined ? logicalId.toLowerCase().slice(0, 10) : `${logicalId}-root`;
    default:
      return attribute === undefined ? logicalId : `${logicalId}.${attribute}`;
  }
}

/**
 * A template value as deployed: every `Ref`, `Fn::GetAtt` and `Fn::Join` evaluated with
 * {@link deployedAttribute}, or what `override` says for a resource (a local queue's URL).
 * @param template - the template the value comes from
 * @param value - a value of it
 * @param override - deployed values to use in place of the made-up ones
 */
export function resolveValue(
  template: CfnTemplate,
  value: unknown,
  override: PhysicalOverride = () => undefined,
): unknown {
  return deployedValue(
    value,
    (id, attribute) => override(id, attribute) ?? deployedAttribute(template, id, attribute),
  );
}

/** The resources of one type, by logical id. */
export function resourcesOfType(
  template: CfnTemplate,
  type: string,
): Array<[string, TemplateResource]> {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

/** The logical id a `{ Ref }` or `{ Fn::GetAtt }` points at, if it is one. */
export function referencedId(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { Ref: ref, 'Fn::GetAtt': getAtt } = value as { Ref?: unknown; 'Fn::GetAtt'?: unknown };
  if (typeof ref === 'string') return ref;
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  return undefined;
}

/** An IAM policy document as a deployed resource holds it. */
export interface NamedPolicy {
  readonly name: string;
  readonly policy: unknown;
}

/**
 * Every identity policy of a role as deployed: its own `Policies`, the inline
 * `AWS::IAM::Policy` resources and the `AWS::IAM::ManagedPolicy` resources attached to it. A
 * managed policy attached by ARN (an AWS managed one) is refused: its document is not in the
 * template, so nothing could be said about what it allows.
 * @param template - the template
 * @param roleId - the role's logical id
 */
export function rolePolicies(template: CfnTemplate, roleId: string): NamedPolicy[] {
  const role = template.Resources[roleId];
  if (role?.Type !== 'AWS::IAM::Role') throw new Error(`${roleId} is not a role`);
  if ((role.Properties?.ManagedPolicyArns ?? []).length > 0) {
    throw new Error(`${roleId} has managed policies outside the template`);
  }
  const own: NamedPolicy[] = (role.Properties?.Policies ?? []).map(
    (policy: { PolicyName: string; PolicyDocument: unknown }) => ({
      name: policy.PolicyName,
      policy: resolveValue(template, policy.PolicyDocument),
    }),
  );
  const attached = ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy'].flatMap((type) =>
    resourcesOfType(template, type)
      .filter(([, policy]) =>
        (policy.Properties?.Roles ?? []).some((ref: unknown) => referencedId(ref) === roleId),
      )
      .map(([name, policy]) => ({
        name,
        policy: resolveValue(template, policy.Properties?.PolicyDocument),
      })),
  );
  return [...own, ...attached];
}

/**
 * KMS's default key policy: the account's IAM policies decide who may use the key. What a key
 * outside the template is taken to have (the key policy of a key the stack creates is read from
 * the template).
 */
export const DEFAULT_KEY_POLICY = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Allow',
      Principal: { AWS: `arn:aws:iam::${DEPLOY_ACCOUNT}:root` },
      Action: 'kms:*',
      Resource: '*',
    },
  ],
};

/**
 * The resource policy that governs a call on `resourceArn` as deployed: a queue's
 * `AWS::SQS::QueuePolicy`, a key's `KeyPolicy` (or {@link DEFAULT_KEY_POLICY} for a key outside
 * the template), a function's `AWS::Lambda::Permission`s as Lambda turns them into statements, a
 * secret's `AWS::SecretsManager::ResourcePolicy`, a role's trust policy; `undefined` when there is
 * none.
 * @param template - the template
 * @param resourceArn - the deployed ARN the call is on
 */
export function resourcePolicyOf(template: CfnTemplate, resourceArn: string): unknown {
  const resolve = (value: unknown) => resolveValue(template, value);
  const owner = Object.entries(template.Resources).find(
    ([id, resource]) =>
      deployedAttribute(template, id, 'Arn') === resourceArn ||
      (resource.Type === 'AWS::SecretsManager::Secret' &&
        deployedAttribute(template, id) === resourceArn),
  );
  if (resourceArn.startsWith('arn:aws:kms:')) {
    return owner === undefined ? DEFAULT_KEY_POLICY : resolve(owner[1].Properties?.KeyPolicy);
  }
  if (owner === undefined) return undefined;
  // A role's trust policy is the policy of the role as a resource, the one sts:AssumeRole reads.
  if (owner[1].Type === 'AWS::IAM::Role') {
    return resolve(owner[1].Properties?.AssumeRolePolicyDocument);
  }
  const [ownerId] = owner;
  const pointsAtOwner = (refs: unknown) =>
    [refs].flat().some((ref) => referencedId(ref) === ownerId);
  const statements = (type: string, refsKey: string) =>
    resourcesOfType(template, type)
      .filter(([, policy]) => pointsAtOwner(policy.Properties?.[refsKey]))
      .flatMap(
        ([, policy]) =>
          (resolve(policy.Properties?.PolicyDocument) as { Statement: unknown[] }).Statement,
      );
  const found = [
    ...statements('AWS::SQS::QueuePolicy', 'Queues'),
    ...statements('AWS::SecretsManager::ResourcePolicy', 'SecretId'),
    ...resourcesOfType(template, 'AWS::Lambda::Permission')
      .filter(([, permission]) => pointsAtOwner(permission.Properties?.FunctionName))
      .map(([, permission]) =>
        lambdaPermissionStatement(resolve(permission.Properties), resourceArn),
      ),
  ];
  return found.length === 0 ? undefined : { Version: '2012-10-17', Statement: found };
}

/**
 * The statement Lambda adds to a function's resource policy for an `AWS::Lambda::Permission`
 * (as `GetPolicy` shows it).
 */
function lambdaPermissionStatement(properties: unknown, functionArn: string): unknown {
  const {
    Action,
    Principal,
    SourceArn,
    SourceAccount,
    FunctionUrlAuthType,
    InvokedViaFunctionUrl,
  } = properties as Record<string, string | boolean | undefined>;
  const condition: Record<string, Record<string, string>> = {};
  if (SourceArn !== undefined) condition.ArnLike = { 'AWS:SourceArn': String(SourceArn) };
  if (SourceAccount !== undefined) {
    condition.StringEquals = { 'AWS:SourceAccount': String(SourceAccount) };
  }
  if (FunctionUrlAuthType !== undefined) {
    condition.StringEquals = {
      ...condition.StringEquals,
      'lambda:FunctionUrlAuthType': String(FunctionUrlAuthType),
    };
  }
  if (InvokedViaFunctionUrl !== undefined) {
    condition.Bool = { 'lambda:InvokedViaFunctionUrl': String(InvokedViaFunctionUrl) };
  }
  const principal =
    Principal === '*'
      ? '*'
      : String(Principal).endsWith('.amazonaws.com')
        ? { Service: Principal }
        : { AWS: Principal };
  return {
    Effect: 'Allow',
    Principal: principal,
    Action,
    Resource: functionArn,
    ...(Object.keys(condition).length === 0 ? {} : { Condition: condition }),
  };
}
