import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { App, CfnElement } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app.js';
import type { ReceiverStack } from '../../lib/receiver-stack.js';
import { appProps, SKIP_BUNDLING } from './cdk-app.js';

const SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:booking-webhook-key-AbC123';
const CERTIFICATE_ARN =
  'arn:aws:acm:eu-west-1:123456789012:certificate/1f2e3d4c-5b6a-4789-90ab-cdef01234567';

/** The parts of CDK's validation-report.json (written next to the templates) these tests read. */
interface ValidationReport {
  readonly pluginReports: ReadonlyArray<{
    readonly pluginName: string;
    readonly violations: ReadonlyArray<{ readonly ruleName: string; readonly severity: string }>;
    readonly suppressedViolations?: ReadonlyArray<{
      readonly ruleName: string;
      readonly reason: string;
    }>;
  }>;
}

interface SynthesizedApp {
  readonly app: App;
  readonly stack: ReceiverStack;
  readonly assembly: CloudAssembly;
  readonly report: ValidationReport;
}

/** Synthesizes the app as `cdk synth` would, with cdk.json's context and `context` on top. */
function synthesizeApp(context: Record<string, unknown>, stackName: string): SynthesizedApp {
  const app = buildApp(appProps(context));
  const assembly = app.synth();
  const report: ValidationReport = JSON.parse(
    readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'),
  );
  return { app, stack: app.node.findChild(stackName) as ReceiverStack, assembly, report };
}

function unsuppressedFindings({ report }: SynthesizedApp): string[] {
  return report.pluginReports.flatMap((plugin) =>
    plugin.violations.map((violation) => `${violation.severity} ${violation.ruleName}`),
  );
}

function suppressedFindings({ report }: SynthesizedApp): Map<string, string> {
  return new Map(
    report.pluginReports.flatMap((plugin) =>
      (plugin.suppressedViolations ?? []).map((finding) => [finding.ruleName, finding.reason]),
    ),
  );
}

/** Directory of a function's bundled code in the cloud assembly. */
function bundleDirectory(
  { stack, assembly }: SynthesizedApp,
  fn: 'receiverFunction' | 'consumer',
): string {
  const construct = stack.receiver[fn];
  const logicalId = stack.getLogicalId(construct?.node.defaultChild as CfnElement);
  const template = assembly.getStackByName(stack.stackName).template;
  const s3Key: string = template.Resources[logicalId].Properties.Code.S3Key;
  return join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`);
}

describe('Function: buildApp', () => {
  // Two synths for the whole file: the defaults with real esbuild bundling (as `cdk synth` runs),
  // and every context key set, without bundling.
  let defaults: SynthesizedApp;
  let configured: SynthesizedApp;

  beforeAll(() => {
    defaults = synthesizeApp({}, 'WebhookReceiver');
    configured = synthesizeApp(
      {
        ...SKIP_BUNDLING,
        stackName: 'BookingHooks',
        ingress: 'rest-api',
        webAclArn:
          'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/hooks/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111',
        secretJsonField: 'webhook_secret',
        tracing: 'true',
        secretArn: SECRET_ARN,
        fifo: 'true',
        consumer: 'false',
        alarmEmail: 'ops@example.com',
        signatureToleranceSeconds: '120',
        previousKeyGraceSeconds: '0',
        forwardEvents: '*',
        throttleRateLimit: '10',
        throttleBurstLimit: '20',
        domainName: 'hooks.example.com',
        certificateArn: CERTIFICATE_ARN,
        hostedZoneId: 'Z0123456789ABCDEFGHIJ',
        hostedZoneName: 'example.com',
        disableDefaultEndpoint: 'true',
        allowedSourceIps: '203.0.113.0/24,2001:db8::/32',
      },
      'BookingHooks',
    );
  }, 120_000);

  describe('cdk-nag AwsSolutions and Serverless checks', () => {
    it('leaves no unsuppressed error or warning with the default context', () => {
      expect(defaults.report.pluginReports.map((plugin) => plugin.pluginName).sort()).toEqual([
        'AwsSolutions',
        'Serverless',
      ]);
      expect(unsuppressedFindings(defaults)).toEqual([]);
    });

    it('leaves no unsuppressed error or warning with every context key set', () => {
      expect(unsuppressedFindings(configured)).toEqual([]);
    });

    it('suppresses exactly the accepted findings, each with a one-sentence reason naming the rule', () => {
      // Act
      const suppressed = suppressedFindings(defaults);

      // Assess
      expect([...suppressed.keys()].sort()).toEqual(
        [
          'AwsSolutions-APIG4',
          // The archive: its bucket's access logs, and Firehose writing any object of the bucket.
          'AwsSolutions-S1',
          'AwsSolutions-IAM5[Resource::<WebhookReceiverArchiveBucketCAA1B17A.Arn>/*]',
          'AwsSolutions-SMG4',
          'Serverless-LambdaDLQ',
          'Serverless-LambdaEventSourceMappingDestination',
          'Serverless-LambdaTracing',
          'Serverless-SQSRedrivePolicy',
        ].sort(),
      );
      for (const [ruleName, reason] of suppressed) {
        const ruleId = ruleName.replace(/\[.*$/, '');
        expect(reason.startsWith(`${ruleId} (`)).toBe(true);
        expect(reason.endsWith('.')).toBe(true);
        expect(reason.slice(0, -1)).not.toMatch(/\.\s/);
      }
    });

    it('does not suppress the secret-rotation, WAF or tracing rules when the context satisfies them', () => {
      // Act
      const suppressed = [...suppressedFindings(configured).keys()];

      // Assess
      expect(suppressed).toContain('AwsSolutions-APIG2');
      for (const rule of [
        'AwsSolutions-SMG4',
        'AwsSolutions-APIG3',
        'Serverless-LambdaTracing',
        'Serverless-APIGWXrayEnabled',
      ]) {
        expect(suppressed).not.toContain(rule);
      }
    });

    it('fails synthesis on a finding nobody acknowledged', () => {
      // Prepare
      const app = buildApp(appProps(SKIP_BUNDLING));
      new Queue(app.node.findChild('WebhookReceiver') as ReceiverStack, 'QueueWithoutDlq');

      // Act
      const synth = () => app.synth();

      // Assess
      expect(synth).toThrow(/AwsSolutions-SQS3/);
    });
  });

  describe('Stack', () => {
    it('names the stack after the stackName context key and applies the other keys', () => {
      // Prepare
      const template = configured.assembly.getStackByName('BookingHooks').template;
      const resources = Object.values<{ Type: string; Properties: Record<string, unknown> }>(
        template.Resources,
      );

      // Assess
      expect(configured.stack.stackName).toBe('BookingHooks');
      expect(resources.filter((r) => r.Type === 'AWS::Lambda::Function')).toHaveLength(1);
      expect(resources.filter((r) => r.Type === 'AWS::SecretsManager::Secret')).toHaveLength(0);
      expect(resources.filter((r) => r.Type === 'AWS::SNS::Subscription')).toHaveLength(1);
      expect(
        resources.filter((r) => r.Type === 'AWS::SQS::Queue').map((r) => r.Properties.FifoQueue),
      ).toEqual([true, true]);
      expect(resources.filter((r) => r.Type === 'AWS::ApiGateway::RestApi')).toHaveLength(1);
      expect(resources.filter((r) => r.Type === 'AWS::WAFv2::WebACLAssociation')).toHaveLength(1);
      expect(resources.filter((r) => r.Type === 'AWS::ApiGateway::DomainName')).toHaveLength(1);
      expect(resources.filter((r) => r.Type === 'AWS::Route53::RecordSet')).toHaveLength(2);
      expect(
        resources.find((r) => r.Type === 'AWS::ApiGateway::RestApi')?.Properties,
      ).toMatchObject({
        DisableExecuteApiEndpoint: true,
        Policy: { Statement: [{ Effect: 'Deny' }, { Effect: 'Allow' }] },
      });
      expect(template.Outputs.WebhookUrl.Value).toBe('https://hooks.example.com/webhook');
      const receiver = resources.find((r) => r.Type === 'AWS::Lambda::Function');
      expect(receiver?.Properties).toMatchObject({
        Environment: { Variables: { SECRET_JSON_FIELD: 'webhook_secret' } },
        TracingConfig: { Mode: 'Active' },
      });
    });

    it('deploys the HTTP API and the example consumer by default', () => {
      // Prepare
      const template = defaults.assembly.getStackByName('WebhookReceiver').template;
      const types = Object.values<{ Type: string }>(template.Resources).map((r) => r.Type);

      // Assess
      expect(types).toContain('AWS::ApiGatewayV2::Api');
      expect(types).not.toContain('AWS::ApiGateway::RestApi');
      expect(types.filter((type) => type === 'AWS::Lambda::Function')).toHaveLength(2);
      expect(types).toContain('AWS::Lambda::EventSourceMapping');
    });

    it.each([
      ['ingress', 'alb', /context ingress must be one of http-api, rest-api, function-url/],
      ['fifo', 'yes', /context fifo must be true or false/],
      ['webAclArn', 'arn:aws:s3:::bucket', /webAclArn/],
      ['throttleRateLimit', '0', /throttleRateLimit/],
      ['secretArn', 'booking-key', /secretArn/],
      ['endpoints', 'EU,us', /context endpoints entry "EU" is not 1 to 32 characters/],
      ['secretArn.eu', SECRET_ARN, /context secretArn\.eu names no endpoint/],
      [
        'allowedSourceIps',
        '203.0.113.0/24,10.0.0.1/8',
        /allowedSourceIps \(ALLOWED_SOURCE_IPS\) entry "10\.0\.0\.1\/8"/,
      ],
      ['domainName', 'hooks.example.com', /domainName needs certificateArn/],
      ['disableDefaultEndpoint', 'maybe', /context disableDefaultEndpoint must be true or false/],
    ])('refuses context %s=%s with an error naming the key', (key, value, message) => {
      expect(() =>
        buildApp(appProps({ ...SKIP_BUNDLING, ingress: 'rest-api', [key]: value })),
      ).toThrow(message);
    });

    it('synthesizes without CDK warnings or errors', () => {
      for (const { assembly, stack } of [defaults, configured]) {
        const messages = assembly.getStackByName(stack.stackName).messages;
        expect(messages.filter((message) => message.level !== 'info')).toEqual([]);
      }
    });

    it('is environment-agnostic, so synthesis needs no AWS account', () => {
      const { environment } = defaults.assembly.getStackByName('WebhookReceiver');
      expect(environment.account).toBe('unknown-account');
      expect(environment.region).toBe('unknown-region');
    });
  });

  describe('Lambda bundles', () => {
    it('bundles the receiver as a minified ES module with the AWS SDK inside and a source map', () => {
      // Prepare
      const directory = bundleDirectory(defaults, 'receiverFunction');
      const code = readFileSync(join(directory, 'index.mjs'), 'utf8');
      const map = JSON.parse(readFileSync(join(directory, 'index.mjs.map'), 'utf8'));

      // Assess
      expect(readdirSync(directory).sort()).toEqual(['index.mjs', 'index.mjs.map']);
      // An external SDK would be a static import; the bundle's require() calls of optional SDK
      // add-ons (CRT signing) sit in try/catch and are not externals.
      expect(code.match(/(from|import\()\s*["'](@aws-sdk|@smithy)\/[^"']*/)).toBeNull();
      expect(code.includes('SendMessage')).toBe(true);
      expect(code.split('\n').length).toBeLessThan(code.length / 1000);
      expect(map.sources.length).toBeGreaterThan(0);
      expect(map.sourcesContent).toBeUndefined();
    });

    it('produces bundles that Node.js loads as ES modules exporting handler', () => {
      for (const fn of ['receiverFunction', 'consumer'] as const) {
        // Prepare
        const file = pathToFileURL(join(bundleDirectory(defaults, fn), 'index.mjs')).href;

        // Act
        const output = execFileSync(
          process.execPath,
          ['--input-type=module', '-e', `console.log(typeof (await import('${file}')).handler)`],
          {
            env: {
              PATH: process.env.PATH,
              AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
              AWS_REGION: 'eu-west-1',
              SECRET_ID: SECRET_ARN,
              QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/queue',
            },
            encoding: 'utf8',
          },
        );

        // Assess
        expect(output.trim()).toBe('function');
      }
    });
  });
});
