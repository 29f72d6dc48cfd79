import {
  ALLOWED_SOURCE_IPS,
  ARCHIVE_STREAM,
  ENDPOINT_DIRECTORY_SECRET_ID,
  ENDPOINT_DIRECTORY_VERSION,
} from '../../../lambda/contract/environment.js';
import { RECEIVER_FUNCTION_SETTINGS, SETTINGS } from '../../../lambda/contract/settings.js';
import {
  type CfnTemplate,
  DEPLOY_ACCOUNT,
  DEPLOY_REGION,
  deployedAttribute,
  referencedId,
  resolveValue,
  resourcesOfType,
} from '../../support/deployed-template.js';
import type { SimulatedRequest } from '../../support/iam-simulator.js';

/** One AWS call a deployed function (or a front door) makes, and why it makes it. */
export interface RuntimeCall {
  /** Logical id of the function whose role makes the call; absent for calls made to a function. */
  readonly functionId?: string;
  /** Where the call comes from: the variable, event source mapping or front door. */
  readonly why: string;
  readonly request: SimulatedRequest;
}

/**
 * The KMS key of each imported secret or queue, by its ARN: what holds outside the template (the
 * key of a secret or queue the stack creates is read from the template).
 */
export type ExternalKeys = Readonly<Record<string, string>>;

/**
 * Variables that make no AWS call, by name; every other variable of a function must be one
 * {@link callsOfVariable} knows, or deriving the calls fails, so a new variable cannot slip by
 * without saying what it calls.
 */
const NO_CALL_VARIABLES: ReadonlySet<string> = new Set([
  'NODE_OPTIONS',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOG_LEVEL',
  'SECRET_JSON_FIELD',
  'ENDPOINT_SECRET_JSON_FIELDS',
  'FORWARD_EVENTS',
  'IDEMPOTENCY_TTL_SECONDS',
  ALLOWED_SOURCE_IPS,
  ENDPOINT_DIRECTORY_VERSION,
  ...RECEIVER_FUNCTION_SETTINGS.map((prop) => SETTINGS[prop].variable),
]);

/** The ARN of a queue from its URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`). */
function queueArnOf(queueUrl: string): string {
  const match = /^https:\/\/sqs\.([a-z0-9-]+)\.amazonaws\.com\/(\d{12})\/([^/]+)$/.exec(queueUrl);
  if (match === null) throw new Error(`QUEUE_URL ${queueUrl} is not a queue URL`);
  return `arn:aws:sqs:${match[1]}:${match[2]}:${match[3]}`;
}

/** Derives the calls of a deployed template. */
class CallDeriver {
  readonly #template: CfnTemplate;
  readonly #externalKeys: ExternalKeys;

  constructor(template: CfnTemplate, externalKeys: ExternalKeys) {
    this.#template = template;
    this.#externalKeys = externalKeys;
  }

  resolve(value: unknown): unknown {
    return resolveValue(this.#template, value);
  }

  /** The customer managed key of a secret or queue, when it has one. */
  keyOf(resourceArn: string): string | undefined {
    const external = this.#externalKeys[resourceArn];
    if (external !== undefined) return external;
    for (const [id, resource] of Object.entries(this.#template.Resources)) {
      const key =
        resource.Type === 'AWS::SQS::Queue' &&
        deployedAttribute(this.#template, id, 'Arn') === resourceArn
          ? resource.Properties?.KmsMasterKeyId
          : resource.Type === 'AWS::SecretsManager::Secret' &&
              deployedAttribute(this.#template, id) === resourceArn
            ? resource.Properties?.KmsKeyId
            : undefined;
      // alias/aws/sqs and the like are AWS managed keys, whose policies allow the account's
      // principals through the service: nothing in the template decides about them.
      const resolved = key === undefined ? undefined : String(this.resolve(key));
      if (resolved?.startsWith('arn:aws:kms:')) return resolved;
    }
    return undefined;
  }

  /** DescribeSecret and GetSecretValue (the key ring), and the key's Decrypt through Secrets Manager. */
  readKeyRing(secretArn: string, why: string): Omit<RuntimeCall, 'functionId'>[] {
    return [
      ...['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'].map((action) => ({
        why,
        request: { principal: '', action, resource: secretArn },
      })),
      ...this.decryptSecret(secretArn, why),
    ];
  }

  decryptSecret(secretArn: string, why: string): Omit<RuntimeCall, 'functionId'>[] {
    return this.keyCalls(secretArn, ['kms:Decrypt'], 'secretsmanager', `${why} (secret key)`);
  }

  keyCalls(
    resourceArn: string,
    actions: readonly string[],
    service: string,
    why: string,
  ): Omit<RuntimeCall, 'functionId'>[] {
    const key = this.keyOf(resourceArn);
    if (key === undefined) return [];
    return actions.map((action) => ({
      why,
      request: {
        principal: '',
        action,
        resource: key,
        context: {
          'kms:ViaService': `${service}.${DEPLOY_REGION}.amazonaws.com`,
          'kms:CallerAccount': DEPLOY_ACCOUNT,
        },
      },
    }));
  }

  /** The endpoint secrets listed in a directory secret of the template. */
  directoryEntries(directoryArn: string): string[] {
    const directory = resourcesOfType(this.#template, 'AWS::SecretsManager::Secret').find(
      ([id]) => deployedAttribute(this.#template, id) === directoryArn,
    );
    if (directory === undefined)
      throw new Error(`the directory ${directoryArn} is not in the template`);
    const text = String(this.resolve(directory[1].Properties?.SecretString));
    return Object.values((JSON.parse(text) as { secretIds: Record<string, string> }).secretIds);
  }

  /** The calls one variable of a function's environment leads to. */
  callsOfVariable(name: string, value: string): Omit<RuntimeCall, 'functionId'>[] {
    const why = name;
    switch (name) {
      case 'QUEUE_URL': {
        const queueArn = queueArnOf(value);
        return [
          // sqs:SendMessage also authorizes SendMessageBatch (SQS has no action of its own for it).
          { why, request: { principal: '', action: 'sqs:SendMessage', resource: queueArn } },
          // A producer of an encrypted queue needs both (SQS documentation, "Key management").
          ...this.keyCalls(
            queueArn,
            ['kms:GenerateDataKey', 'kms:Decrypt'],
            'sqs',
            `${why} (queue key)`,
          ),
        ];
      }
      case 'SECRET_ID':
        return this.readKeyRing(value, why);
      case ENDPOINT_DIRECTORY_SECRET_ID:
        return [
          {
            why,
            request: { principal: '', action: 'secretsmanager:GetSecretValue', resource: value },
          },
          ...this.decryptSecret(value, why),
          ...this.directoryEntries(value).flatMap((secretArn) =>
            this.readKeyRing(secretArn, `${why} -> ${secretArn}`),
          ),
        ];
      case 'ENDPOINT_SECRET_IDS':
        return Object.values(JSON.parse(value) as Record<string, string>).flatMap((secretArn) =>
          this.readKeyRing(secretArn, `${why} -> ${secretArn}`),
        );
      case 'IDEMPOTENCY_TABLE':
        // What Powertools' DynamoDBPersistenceLayer sends: no Query, no Scan.
        return [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
        ].map((action) => ({
          why,
          request: {
            principal: '',
            action,
            resource: `arn:aws:dynamodb:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:table/${value}`,
          },
        }));
      case ARCHIVE_STREAM:
        // The delivery archive (where deployed): one PutRecord per answered call (archive-writer.ts).
        return ['firehose:PutRecord'].map((action) => ({
          why,
          request: {
            principal: '',
            action,
            resource: `arn:aws:firehose:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:deliverystream/${value}`,
          },
        }));
      default:
        if (NO_CALL_VARIABLES.has(name)) return [];
        throw new Error(`variable ${name} is not known to make no AWS call: say which it makes`);
    }
  }

  /** Every call each function's role makes. */
  functionCalls(): RuntimeCall[] {
    return resourcesOfType(this.#template, 'AWS::Lambda::Function').flatMap(([functionId, fn]) => {
      const props = fn.Properties ?? {};
      const roleArn = String(this.resolve(props.Role));
      const logGroup = String(
        this.resolve(props.LoggingConfig?.LogGroup ?? `/aws/lambda/${functionId}`),
      );
      const logStream = `arn:aws:logs:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:log-group:${logGroup}:log-stream:2026/11/27/[$LATEST]0123456789abcdef`;
      const logs = ['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
        why: 'the function log group',
        request: { principal: '', action, resource: logStream },
      }));
      const variables = Object.entries(
        (this.resolve(props.Environment?.Variables ?? {}) as Record<string, string>) ?? {},
      ).flatMap(([name, value]) => this.callsOfVariable(name, value));
      const mappings = resourcesOfType(this.#template, 'AWS::Lambda::EventSourceMapping')
        .filter(([, mapping]) => referencedId(mapping.Properties?.FunctionName) === functionId)
        .flatMap(([id, mapping]) => {
          const queueArn = String(this.resolve(mapping.Properties?.EventSourceArn));
          return [
            ...[
              'sqs:ReceiveMessage',
              'sqs:DeleteMessage',
              'sqs:GetQueueAttributes',
              'sqs:ChangeMessageVisibility',
            ].map((action) => ({
              why: `event source mapping ${id}`,
              request: { principal: '', action, resource: queueArn },
            })),
            ...this.keyCalls(
              queueArn,
              ['kms:Decrypt'],
              'sqs',
              `event source mapping ${id} (queue key)`,
            ),
          ];
        });
      return [...logs, ...variables, ...mappings].map((call) => ({
        ...call,
        functionId,
        request: { ...call.request, principal: roleArn },
      }));
    });
  }

  /** The invocations each front door makes: API Gateway's routes and methods, a function URL. */
  frontDoorCalls(): RuntimeCall[] {
    const template = this.#template;
    const functionArnIn = (value: unknown) =>
      resourcesOfType(template, 'AWS::Lambda::Function')
        .map(([id]) => deployedAttribute(template, id, 'Arn'))
        .find((arn) => String(this.resolve(value)).includes(arn));
    const invoke = (why: string, functionArn: string, sourceArn: string): RuntimeCall => ({
      why,
      request: {
        principal: 'apigateway.amazonaws.com',
        action: 'lambda:InvokeFunction',
        resource: functionArn,
        context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': DEPLOY_ACCOUNT },
      },
    });
    const executeApi = (apiId: string, rest: string) =>
      `arn:aws:execute-api:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:${apiId}/${rest}`;
    const stageOf = (type: string, apiKey: string, apiId: string) =>
      resourcesOfType(template, type)
        .map(([, stage]) => stage.Properties ?? {})
        .find((stage) => this.resolve(stage[apiKey]) === apiId)?.StageName as string;
    const httpApi = resourcesOfType(template, 'AWS::ApiGatewayV2::Route').flatMap(([id, route]) => {
      const integrationId = String(this.resolve(route.Properties?.Target)).replace(
        'integrations/',
        '',
      );
      const integration = template.Resources[integrationId]?.Properties ?? {};
      const functionArn = functionArnIn(integration.IntegrationUri);
      if (functionArn === undefined) return [];
      const apiId = String(this.resolve(route.Properties?.ApiId));
      const [method, path] = String(route.Properties?.RouteKey).split(' ');
      const stage = stageOf('AWS::ApiGatewayV2::Stage', 'ApiId', apiId);
      return [invoke(`route ${id}`, functionArn, executeApi(apiId, `${stage}/${method}${path}`))];
    });
    const pathOf = (resourceRef: unknown): string => {
      const id = referencedId(resourceRef);
      const resource = id === undefined ? undefined : template.Resources[id];
      if (resource?.Type !== 'AWS::ApiGateway::Resource') return '';
      return `${pathOf(resource.Properties?.ParentId)}/${resource.Properties?.PathPart}`;
    };
    const restApi = resourcesOfType(template, 'AWS::ApiGateway::Method').flatMap(([id, method]) => {
      const functionArn = functionArnIn(method.Properties?.Integration?.Uri ?? '');
      if (functionArn === undefined) return [];
      const apiId = String(this.resolve(method.Properties?.RestApiId));
      const stage = stageOf('AWS::ApiGateway::Stage', 'RestApiId', apiId);
      const path = pathOf(method.Properties?.ResourceId);
      return [
        invoke(
          `method ${id}`,
          functionArn,
          executeApi(apiId, `${stage}/${method.Properties?.HttpMethod}${path}`),
        ),
      ];
    });
    const functionUrls = resourcesOfType(template, 'AWS::Lambda::Url').flatMap(([id, url]) => {
      const functionArn = String(this.resolve(url.Properties?.TargetFunctionArn));
      const authType = String(url.Properties?.AuthType);
      // Since October 2025 a public URL needs both: InvokeFunctionUrl for the URL's auth type,
      // and InvokeFunction for an invocation that comes through the URL.
      return [
        {
          why: `function URL ${id}`,
          request: {
            principal: 'anonymous',
            action: 'lambda:InvokeFunctionUrl',
            resource: functionArn,
            context: { 'lambda:FunctionUrlAuthType': authType },
          },
        },
        {
          why: `function URL ${id}`,
          request: {
            principal: 'anonymous',
            action: 'lambda:InvokeFunction',
            resource: functionArn,
            context: { 'lambda:InvokedViaFunctionUrl': 'true' },
          },
        },
      ];
    });
    return [...httpApi, ...restApi, ...functionUrls];
  }
}

/**
 * Every AWS call the deployed functions make at runtime, derived from the template: each
 * function's environment variables (the queue it sends to, the secrets it reads, the secrets the
 * endpoint directory lists, the idempotency table), its event source mappings, its log group, the
 * KMS keys of those queues and secrets; and the invocations of each front door.
 * @param template - the synthesized template
 * @param externalKeys - the KMS keys of imported secrets and queues
 * @throws Error on a variable not known to make no call, so none is overlooked
 */
export function runtimeCalls(
  template: CfnTemplate,
  externalKeys: ExternalKeys = {},
): RuntimeCall[] {
  const deriver = new CallDeriver(template, externalKeys);
  return [...deriver.functionCalls(), ...deriver.frontDoorCalls()];
}
