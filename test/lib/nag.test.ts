import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import { INGRESS_KINDS, type WebhookReceiverProps } from '../../lib/webhook-receiver-props.js';
import { appProps, SKIP_BUNDLING } from './cdk-app.js';

/** The parts of CDK's validation-report.json these tests read. */
interface ValidationReport {
  readonly pluginReports: ReadonlyArray<{
    readonly pluginName: string;
    readonly violations: ReadonlyArray<{
      readonly ruleName: string;
      readonly violatingResources: ReadonlyArray<{ readonly locations: readonly string[] }>;
    }>;
    readonly suppressedViolations?: ReadonlyArray<{ readonly ruleName: string }>;
  }>;
}

/**
 * Every combination the issues name (ingress x existingQueue x consumer x fifo, and idempotency
 * where there is a consumer), plus tracing and the alarm e-mail per ingress, and named endpoints
 * (one with a placeholder secret), the source allowlist, the custom domain (where the front
 * door has one) and the archive per ingress.
 */
const COMBINATIONS = INGRESS_KINDS.flatMap((ingress) => [
  ...[false, true].flatMap((existingQueue) =>
    [{ consumer: false }, { consumer: true }, { consumer: true, idempotency: true }].flatMap(
      (consumer) =>
        [false, true].map((fifo) => ({
          ingress,
          existingQueue,
          ...consumer,
          fifo,
          tracing: false,
        })),
    ),
  ),
  {
    ingress,
    existingQueue: false,
    consumer: true,
    idempotency: true,
    fifo: false,
    tracing: true,
    alarmEmail: 'ops@example.com',
  },
  {
    ingress,
    existingQueue: false,
    consumer: true,
    fifo: false,
    tracing: false,
    endpoints: [{ name: 'eu' }, { name: 'us-west' }],
  },
  // The front door's own options: the source allowlist, and the custom domain where it exists.
  {
    ingress,
    existingQueue: false,
    consumer: true,
    fifo: false,
    tracing: false,
    allowedSourceIps: ['203.0.113.0/24', '2001:db8::/32'],
    customDomain: ingress !== 'function-url',
  },
  // The archive of deliveries: bucket, Firehose stream and its alarm; under a customer managed
  // key with one of the front doors.
  {
    ingress,
    existingQueue: false,
    consumer: true,
    fifo: false,
    tracing: false,
    archive: true,
    archiveKey: ingress === 'rest-api',
  },
]);

describe('cdk-nag AwsSolutions and Serverless packs on a stack holding the construct', () => {
  let report: ValidationReport;

  beforeAll(() => {
    // Prepare: one app with a stack per combination, synthesized once. The stacks add nothing
    // but the construct: every acknowledgement must come from the construct itself.
    const app = new App(appProps(SKIP_BUNDLING));
    for (const [index, combination] of COMBINATIONS.entries()) {
      const { existingQueue, customDomain, archiveKey, ...options } = {
        customDomain: false,
        archiveKey: false,
        ...combination,
      };
      // The stack's description names the combination, for a reader of a failing report.
      const stack = new Stack(app, `Nag${index}`, { description: JSON.stringify(combination) });
      const props: WebhookReceiverProps = {
        ...options,
        ...(customDomain
          ? {
              domainName: 'hooks.example.com',
              certificate: Certificate.fromCertificateArn(
                stack,
                'Certificate',
                'arn:aws:acm:eu-west-1:123456789012:certificate/1f2e3d4c-5b6a-4789-90ab-cdef01234567',
              ),
              hostedZoneId: 'Z0123456789ABCDEFGHIJ',
              hostedZoneName: 'example.com',
            }
          : {}),
        ...(existingQueue
          ? {
              // Imported as the README says, with its KMS key: no synth warning in the report.
              existingQueue: Queue.fromQueueAttributes(stack, 'Existing', {
                queueArn: `arn:aws:sqs:eu-west-1:123456789012:bookings${options.fifo ? '.fifo' : ''}`,
                keyArn:
                  'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
              }),
            }
          : {}),
        ...(archiveKey
          ? {
              archiveEncryptionKey: Key.fromKeyArn(
                stack,
                'ArchiveKey',
                'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
              ),
            }
          : {}),
      };
      new WebhookReceiver(stack, 'Receiver', props);
    }
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));

    // Act
    const assembly = app.synth();
    report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'));
  }, 120_000);

  it('runs both packs on every combination', () => {
    expect(report.pluginReports.map((plugin) => plugin.pluginName).sort()).toEqual([
      'AwsSolutions',
      'Serverless',
    ]);
    expect(COMBINATIONS).toHaveLength(48);
  });

  it('reports no finding for any ingress, with or without existingQueue, consumer, idempotency, fifo, endpoints, allowedSourceIps, a custom domain or the archive', () => {
    // Act
    const findings = report.pluginReports.flatMap((plugin) =>
      plugin.violations.flatMap((violation) =>
        violation.violatingResources.map(
          (resource) => `${violation.ruleName} at ${resource.locations.join(', ')}`,
        ),
      ),
    );

    // Assess
    expect(findings).toEqual([]);
  });

  it('acknowledges findings of both packs (so the empty result is not a pack that did not run)', () => {
    for (const plugin of report.pluginReports) {
      expect(plugin.suppressedViolations?.length).toBeGreaterThan(0);
    }
  });
});
