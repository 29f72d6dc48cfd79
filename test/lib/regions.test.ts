import { Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
import { InvalidWebhookReceiverPropsError } from '../../lib/configuration-error.js';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import type { WebhookReceiverProps } from '../../lib/webhook-receiver-props.js';
import { templateTestApp } from './cdk-app.js';

const WEB_ACL_ARN =
  'arn:aws:wafv2:us-east-1:123456789012:regional/webacl/hooks/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';
const CERTIFICATE_ARN =
  'arn:aws:acm:us-east-1:123456789012:certificate/1f2e3d4c-5b6a-4789-90ab-cdef01234567';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:hooks-AbC123';
const KMS_KEY_ARN = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** A receiver in a stack of eu-west-1, given props made in that stack (all in us-east-1). */
function inEurope(props: (stack: Stack) => WebhookReceiverProps, region?: string) {
  return () => {
    const stack = new Stack(templateTestApp(), 'InEurope', {
      ...(region === undefined ? {} : { env: { account: '123456789012', region } }),
    });
    return new WebhookReceiver(stack, 'Receiver', props(stack));
  };
}

describe('Class: WebhookReceiver, given a resource of another region', () => {
  it.each([
    [
      'webAclArn',
      () => ({ ingress: 'rest-api', webAclArn: WEB_ACL_ARN }),
      'a regional web ACL protects a stage of its own region only',
    ],
    [
      'certificate',
      (stack: Stack) => ({
        domainName: 'hooks.example.com',
        certificate: acm.Certificate.fromCertificateArn(stack, 'Certificate', CERTIFICATE_ARN),
      }),
      'a regional custom domain takes a certificate of its own region only',
    ],
    [
      'secret',
      (stack: Stack) => ({
        secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'Key', SECRET_ARN),
      }),
      'the receiver reads its secrets through Secrets Manager in its own region',
    ],
    [
      'secret of endpoint "eu"',
      (stack: Stack) => ({
        endpoints: [
          {
            name: 'eu',
            secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'Key', SECRET_ARN),
          },
        ],
      }),
      'the receiver reads its secrets through Secrets Manager in its own region',
    ],
    [
      'the key of secret',
      (stack: Stack) => ({
        secret: secretsmanager.Secret.fromSecretAttributes(stack, 'Key', {
          secretCompleteArn: SECRET_ARN.replace('us-east-1', 'eu-west-1'),
          encryptionKey: kms.Key.fromKeyArn(stack, 'SecretKey', KMS_KEY_ARN),
        }),
      }),
      "a secret's key must be in the secret's region",
    ],
  ] as const)('refuses %s at synth, naming both regions', (name, props, why) => {
    // Act
    const build = inEurope(props as (stack: Stack) => WebhookReceiverProps, 'eu-west-1');

    // Assess
    expect(build).toThrow(InvalidWebhookReceiverPropsError);
    expect(build).toThrow(`${name} is in us-east-1 but the stack is in eu-west-1: ${why}`);
  });

  it('leaves the regions to deploy time when the stack has none (an environment-agnostic stack)', () => {
    // Act
    const build = inEurope(() => ({ ingress: 'rest-api', webAclArn: WEB_ACL_ARN }), undefined);

    // Assess
    expect(build).not.toThrow();
  });
});
