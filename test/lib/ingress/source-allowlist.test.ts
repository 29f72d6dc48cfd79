import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lambda/receiver/config.js';
import { InvalidWebhookReceiverPropsError } from '../../../lib/receiver-settings.js';
import { INGRESS_KINDS, type IngressKind } from '../../../lib/webhook-receiver-props.js';
import { type Synthesized, synthesize } from '../synthesize.js';

const RANGES = ['203.0.113.0/24', '2001:db8:4::/48', '198.51.100.7'];

describe('Function: allowedSourceIps', () => {
  const synthesized = new Map<IngressKind, Synthesized>();

  beforeAll(() => {
    for (const ingress of INGRESS_KINDS) {
      synthesized.set(
        ingress,
        synthesize(() => ({ ingress, allowedSourceIps: RANGES })),
      );
    }
  }, 120_000);

  /** The receiver function's environment variables behind one front door. */
  const receiverEnvironment = (ingress: IngressKind): Record<string, string> => {
    const { resource, receiver } = synthesized.get(ingress) as Synthesized;
    return resource(receiver.receiverFunction).Properties.Environment.Variables;
  };

  it('gives the REST API a resource policy that denies execute-api:Invoke from every source outside the list', () => {
    // Prepare
    const { template } = synthesized.get('rest-api') as Synthesized;

    // Act
    const [api] = Object.values(template.findResources('AWS::ApiGateway::RestApi'));

    // Assess
    expect(api?.Properties.Policy).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'DenySourcesOutsideAllowedSourceIps',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'execute-api:Invoke',
          Resource: 'execute-api:/*',
          Condition: {
            NotIpAddress: {
              'aws:SourceIp': ['203.0.113.0/24', '2001:db8:4::/48', '198.51.100.7/32'],
            },
          },
        },
        {
          Sid: 'AllowInvoke',
          Effect: 'Allow',
          Principal: { AWS: '*' },
          Action: 'execute-api:Invoke',
          Resource: 'execute-api:/*',
        },
      ],
    });
  });

  it('leaves the check to the resource policy with the REST API: the receiver is never invoked from outside', () => {
    expect(receiverEnvironment('rest-api')).not.toHaveProperty('ALLOWED_SOURCE_IPS');
  });

  it('redeploys the REST API stage when the list changes, since a changed policy applies from the next deployment', () => {
    // Prepare
    const deploymentIds = (allowedSourceIps?: string[]) =>
      Object.keys(
        synthesize(() => ({
          ingress: 'rest-api',
          ...(allowedSourceIps && { allowedSourceIps }),
        })).template.findResources('AWS::ApiGateway::Deployment'),
      );
    const withRanges = Object.keys(
      (synthesized.get('rest-api') as Synthesized).template.findResources(
        'AWS::ApiGateway::Deployment',
      ),
    );

    // Act
    const others = [deploymentIds(['203.0.113.0/24']), deploymentIds()];

    // Assess
    for (const other of others) expect(other).not.toEqual(withRanges);
  });

  it.each(['http-api', 'function-url'] as const)(
    'gives the receiver the list as ALLOWED_SOURCE_IPS with %s, as the receiver reads it',
    (ingress) => {
      // Act
      const environment = receiverEnvironment(ingress);
      const { template } = synthesized.get(ingress) as Synthesized;

      // Assess
      expect(environment.ALLOWED_SOURCE_IPS).toBe('203.0.113.0/24,2001:db8:4::/48,198.51.100.7/32');
      const config = loadConfig({
        ALLOWED_SOURCE_IPS: environment.ALLOWED_SOURCE_IPS,
        WEBHOOK_SECRET: 'k',
        QUEUE_URL: 'https://sqs.example/q',
      });
      expect(config.allowedSources?.ranges).toEqual([
        '203.0.113.0/24',
        '2001:db8:4::/48',
        '198.51.100.7/32',
      ]);
      expect(JSON.stringify(template.toJSON())).not.toContain('aws:SourceIp');
    },
  );

  it('leaves every source in, and sets no ALLOWED_SOURCE_IPS, without the prop', () => {
    // Act
    const { template, resource, receiver } = synthesize(() => ({}));

    // Assess
    expect(resource(receiver.receiverFunction).Properties.Environment.Variables).not.toHaveProperty(
      'ALLOWED_SOURCE_IPS',
    );
    expect(JSON.stringify(template.toJSON())).not.toContain('aws:SourceIp');
  });

  it.each([
    [
      ['203.0.113.0/24', '203.0.113.300'],
      /^allowedSourceIps \(ALLOWED_SOURCE_IPS\) entry "203\.0\.113\.300" is not an IPv4 or IPv6/,
    ],
    [
      ['203.0.113.0/33'],
      /^allowedSourceIps \(ALLOWED_SOURCE_IPS\) entry "203\.0\.113\.0\/33" has prefix \/33/,
    ],
    [
      ['203.0.113.9/24'],
      /^allowedSourceIps \(ALLOWED_SOURCE_IPS\) entry "203\.0\.113\.9\/24" has bits set after its \/24 prefix: write 203\.0\.113\.0\/24/,
    ],
    [['2001:db8::/32', ''], /^allowedSourceIps \(ALLOWED_SOURCE_IPS\) entry "" is empty/],
    [
      [],
      /^allowedSourceIps \(ALLOWED_SOURCE_IPS\) names no range: leave the setting out to let every source in$/,
    ],
  ])('refuses %j at synth, naming the bad entry', (allowedSourceIps, message) => {
    // Act
    const act = () => synthesize(() => ({ allowedSourceIps }));

    // Assess
    expect(act).toThrow(InvalidWebhookReceiverPropsError);
    expect(act).toThrow(message);
  });
});
