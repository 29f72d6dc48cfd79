import type { CfnElement, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Certificate, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { beforeAll, describe, expect, it } from 'vitest';
import { IPV4_ONLY_ALLOWLIST_WARNING } from '../../../lib/ingress/custom-domain.js';
import { InvalidWebhookReceiverPropsError } from '../../../lib/receiver-settings.js';
import { InvalidReceiverStackPropsError, ReceiverStack } from '../../../lib/receiver-stack.js';
import type { WebhookReceiverProps } from '../../../lib/webhook-receiver-props.js';
import { templateTestApp } from '../cdk-app.js';
import { type Synthesized, synthesize } from '../synthesize.js';

const CERTIFICATE_ARN =
  'arn:aws:acm:eu-west-1:123456789012:certificate/1f2e3d4c-5b6a-4789-90ab-cdef01234567';
const DOMAIN = 'hooks.example.com';
const ZONE = { hostedZoneId: 'Z0123456789ABCDEFGHIJ', hostedZoneName: 'example.com' };

/** The certificate of {@link DOMAIN}, imported into the test's stack. */
function certificate(stack: Stack): ICertificate {
  return Certificate.fromCertificateArn(stack, 'Certificate', CERTIFICATE_ARN);
}

/** The resource types of each front door's custom domain, mapping and endpoint switch. */
const FRONT_DOORS = [
  {
    ingress: 'http-api',
    api: 'AWS::ApiGatewayV2::Api',
    domain: 'AWS::ApiGatewayV2::DomainName',
    mapping: 'AWS::ApiGatewayV2::ApiMapping',
    stage: 'AWS::ApiGatewayV2::Stage',
  },
  {
    ingress: 'rest-api',
    api: 'AWS::ApiGateway::RestApi',
    domain: 'AWS::ApiGateway::DomainName',
    mapping: 'AWS::ApiGateway::BasePathMapping',
    stage: 'AWS::ApiGateway::Stage',
  },
] as const;

describe.each(FRONT_DOORS)('Function: custom domain (ingress $ingress)', (door) => {
  let withZone: Synthesized;
  let withoutZone: Synthesized;

  beforeAll(() => {
    withZone = synthesize((stack) => ({
      ingress: door.ingress,
      domainName: DOMAIN,
      certificate: certificate(stack),
      ...ZONE,
      endpoints: [{ name: 'eu' }, { name: 'us' }],
    }));
    withoutZone = synthesize((stack) => ({
      ingress: door.ingress,
      domainName: DOMAIN,
      certificate: certificate(stack),
      disableDefaultEndpoint: false,
    }));
  }, 120_000);

  it.each([
    ['warns when the allowlist holds IPv4 ranges only', ['203.0.113.0/24'], 1],
    ['does not warn when it holds an IPv6 range too', ['203.0.113.0/24', '2001:db8::/32'], 0],
  ])('%s, as a sender connecting over IPv6 to the domain would get 403', (_, ranges, warnings) => {
    // Prepare
    const { stack } = synthesize((scope) => ({
      ingress: door.ingress,
      domainName: DOMAIN,
      certificate: certificate(scope),
      allowedSourceIps: ranges,
    }));

    // Act
    const found = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('allowedSourceIps holds IPv4 ranges only'),
    );

    // Assess
    expect(found).toHaveLength(warnings);
    expect(found.map(({ entry }) => entry.data)).toEqual(
      Array(warnings).fill(expect.stringContaining(`[ack: ${IPV4_ONLY_ALLOWLIST_WARNING}]`)),
    );
  });

  it('creates a regional custom domain with TLS 1.2 at least, for IPv4 and IPv6, with the certificate', () => {
    // Prepare
    const { template } = withZone;
    const regional =
      door.ingress === 'http-api'
        ? {
            DomainNameConfigurations: [
              {
                CertificateArn: CERTIFICATE_ARN,
                EndpointType: 'REGIONAL',
                SecurityPolicy: 'TLS_1_2',
                IpAddressType: 'dualstack',
              },
            ],
          }
        : {
            RegionalCertificateArn: CERTIFICATE_ARN,
            EndpointConfiguration: { Types: ['REGIONAL'], IpAddressType: 'dualstack' },
            SecurityPolicy: 'TLS_1_2',
          };

    // Assess
    template.resourceCountIs(door.domain, 1);
    template.hasResourceProperties(door.domain, { DomainName: DOMAIN, ...regional });
  });

  it('maps the stage at the root of the domain, so the webhook URLs are on the domain', () => {
    // Prepare
    const { template, receiver, stack, id } = withZone;
    const stageId = Object.keys(template.findResources(door.stage))[0];

    // Assess
    template.resourceCountIs(door.mapping, 1);
    const [mapping] = Object.values(template.findResources(door.mapping));
    expect(mapping?.Properties).toMatchObject({
      DomainName: { Ref: id(receiver.customDomain) },
      [door.ingress === 'http-api' ? 'ApiId' : 'RestApiId']: { Ref: id(receiver.api) },
      Stage: door.ingress === 'http-api' ? '$default' : { Ref: stageId },
    });
    expect(mapping?.Properties).not.toHaveProperty(
      door.ingress === 'http-api' ? 'ApiMappingKey' : 'BasePath',
    );
    expect(stack.resolve(receiver.url)).toBe(`https://${DOMAIN}/webhook`);
    expect(receiver.endpoints.map(({ url }) => stack.resolve(url))).toEqual([
      `https://${DOMAIN}/webhook/eu`,
      `https://${DOMAIN}/webhook/us`,
    ]);
    expect(stack.resolve(withoutZone.receiver.url)).toBe(`https://${DOMAIN}/webhook`);
  });

  it('turns the generated execute-api endpoint off by default, and leaves it on when told', () => {
    // Assess
    withZone.template.hasResourceProperties(door.api, { DisableExecuteApiEndpoint: true });
    withoutZone.template.hasResourceProperties(door.api, { DisableExecuteApiEndpoint: false });
  });

  it('creates A and AAAA alias records to the custom domain in the hosted zone when one is given', () => {
    // Prepare
    const { template, receiver, id } = withZone;
    const target = (attribute: string) => ({
      'Fn::GetAtt': [id(receiver.customDomain), attribute],
    });

    // Assess
    template.resourceCountIs('AWS::Route53::RecordSet', 2);
    for (const type of ['A', 'AAAA']) {
      template.hasResourceProperties('AWS::Route53::RecordSet', {
        Type: type,
        Name: `${DOMAIN}.`,
        HostedZoneId: ZONE.hostedZoneId,
        AliasTarget: {
          DNSName: target('RegionalDomainName'),
          HostedZoneId: target('RegionalHostedZoneId'),
        },
      });
    }
    withoutZone.template.resourceCountIs('AWS::Route53::RecordSet', 0);
  });
});

describe('Function: custom domain props', () => {
  it('refuses domainName with ingress function-url, saying which front doors serve one and why', () => {
    // Act
    const act = () =>
      synthesize((stack) => ({
        ingress: 'function-url',
        domainName: DOMAIN,
        certificate: certificate(stack),
      }));

    // Assess
    expect(act).toThrow(InvalidWebhookReceiverPropsError);
    expect(act).toThrow(
      /^domainName needs ingress http-api or rest-api, got ingress function-url: API Gateway serves a custom domain .*a Lambda function URL has no custom domain/,
    );
  });

  it.each<[string, (certificate: ICertificate) => WebhookReceiverProps, RegExp]>([
    [
      'a certificate without domainName',
      (certificate) => ({ certificate }),
      /^certificate needs domainName$/,
    ],
    [
      'domainName without certificate',
      () => ({ domainName: DOMAIN }),
      /^domainName needs certificate: an ACM certificate for hooks\.example\.com/,
    ],
    ['a hosted zone without domainName', () => ZONE, /^hostedZoneId needs domainName$/],
    [
      'disableDefaultEndpoint without domainName',
      () => ({ disableDefaultEndpoint: true }),
      /^disableDefaultEndpoint needs domainName: without a custom domain the default endpoint is the only way in$/,
    ],
    [
      'hostedZoneId without hostedZoneName',
      (certificate) => ({ domainName: DOMAIN, certificate, hostedZoneId: ZONE.hostedZoneId }),
      /^hostedZoneId and hostedZoneName go together/,
    ],
    [
      'a domainName outside the hosted zone',
      (certificate) => ({ domainName: 'hooks.example.org', certificate, ...ZONE }),
      /^domainName hooks\.example\.org is not in hosted zone example\.com \(hostedZoneName\)$/,
    ],
    [
      'a domainName in upper case',
      (certificate) => ({ domainName: 'Hooks.Example.com', certificate }),
      /^domainName must be a lower-case DNS name such as hooks\.example\.com, got "Hooks\.Example\.com"$/,
    ],
    [
      'a wildcard domainName',
      (certificate) => ({ domainName: '*.example.com', certificate }),
      /^domainName must be a lower-case DNS name such as hooks\.example\.com, got "\*\.example\.com"$/,
    ],
    [
      'a hostedZoneId with its /hostedzone/ prefix',
      (certificate) => ({
        domainName: DOMAIN,
        certificate,
        ...ZONE,
        hostedZoneId: '/hostedzone/Z01',
      }),
      /^hostedZoneId must be a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ, got "\/hostedzone\/Z01"$/,
    ],
  ])('refuses %s', (_, props, message) => {
    // Act
    const act = () => synthesize((stack) => props(certificate(stack)));

    // Assess
    expect(act).toThrow(InvalidWebhookReceiverPropsError);
    expect(act).toThrow(message);
  });

  it('accepts a domainName at the apex of the hosted zone, and a zone name written with its final dot', () => {
    // Act
    const { template } = synthesize((stack) => ({
      domainName: 'example.com',
      certificate: certificate(stack),
      hostedZoneId: ZONE.hostedZoneId,
      hostedZoneName: 'example.com.',
    }));

    // Assess
    template.hasResourceProperties('AWS::Route53::RecordSet', { Name: 'example.com.', Type: 'A' });
  });
});

describe('Class: ReceiverStack with a custom domain', () => {
  it('outputs WebhookUrl on the domain and the name to point a CNAME at when no hosted zone is given', () => {
    // Prepare
    const stack = new ReceiverStack(templateTestApp(), 'Domain', {
      domainName: DOMAIN,
      certificateArn: CERTIFICATE_ARN,
    });
    const domainId = stack.getLogicalId(
      stack.receiver.customDomain?.node.defaultChild as CfnElement,
    );

    // Act
    const outputs = Template.fromStack(stack).findOutputs('*');

    // Assess
    expect(outputs.WebhookUrl?.Value).toBe(`https://${DOMAIN}/webhook`);
    expect(outputs.CustomDomainTarget?.Value).toEqual({
      'Fn::GetAtt': [domainId, 'RegionalDomainName'],
    });
  });

  it('outputs every endpoint URL on the domain, and no CNAME target when the hosted zone gets alias records', () => {
    // Prepare
    const stack = new ReceiverStack(templateTestApp(), 'DomainEndpoints', {
      ingress: 'rest-api',
      domainName: DOMAIN,
      certificateArn: CERTIFICATE_ARN,
      ...ZONE,
      endpoints: [{ name: 'eu' }, { name: 'us-west' }],
    });

    // Act
    const outputs = Template.fromStack(stack).findOutputs('*');

    // Assess
    expect(outputs.WebhookUrlEu?.Value).toBe(`https://${DOMAIN}/webhook/eu`);
    expect(outputs.WebhookUrlUsWest?.Value).toBe(`https://${DOMAIN}/webhook/us-west`);
    expect(outputs).not.toHaveProperty('CustomDomainTarget');
  });

  it.each([
    [{ certificateArn: CERTIFICATE_ARN }, /^certificateArn needs domainName$/],
    [
      { domainName: DOMAIN },
      /^domainName needs certificateArn: the ARN of an ACM certificate for hooks\.example\.com/,
    ],
    [
      { domainName: DOMAIN, certificateArn: 'arn:aws:iam::123456789012:server-certificate/x' },
      /^certificateArn must be an ACM certificate ARN, got "arn:aws:iam::123456789012:server-certificate\/x"$/,
    ],
  ])('refuses %j, naming the context key', (props, message) => {
    // Act
    const act = () => new ReceiverStack(templateTestApp(), 'Refused', props);

    // Assess
    expect(act).toThrow(InvalidReceiverStackPropsError);
    expect(act).toThrow(message);
  });
});
