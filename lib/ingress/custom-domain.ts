import { Annotations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as apigatewayv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as targets from 'aws-cdk-lib/aws-route53-targets';
import type { Construct } from 'constructs';
import type { CustomDomainSettings, ReceiverSettings } from '../receiver-settings.js';

/** A custom domain in front of an API, and the base URL calls use on it (no trailing `/`). */
export interface MappedDomain<D> {
  readonly domain: D;
  /** `https://<domainName>`: the stage is mapped at the root, so `/webhook` follows directly. */
  readonly baseUrl: string;
}

/**
 * An HTTP API custom domain: regional, TLS 1.2 at least, IPv4 and IPv6, the `$default` stage
 * mapped at its root, and the alias records when a hosted zone is given.
 */
export function mapHttpApiDomain(
  scope: Construct,
  settings: CustomDomainSettings,
  api: apigatewayv2.HttpApi,
  stage: apigatewayv2.IStage,
): MappedDomain<apigatewayv2.DomainName> {
  const domain = new apigatewayv2.DomainName(scope, 'CustomDomain', {
    domainName: settings.domainName,
    certificate: settings.certificate,
    endpointType: apigatewayv2.EndpointType.REGIONAL,
    securityPolicy: apigatewayv2.SecurityPolicy.TLS_1_2,
    ipAddressType: apigatewayv2.IpAddressType.DUAL_STACK,
  });
  new apigatewayv2.ApiMapping(scope, 'CustomDomainMapping', { api, domainName: domain, stage });
  createAliasRecords(
    scope,
    settings,
    new targets.ApiGatewayv2DomainProperties(
      domain.regionalDomainName,
      domain.regionalHostedZoneId,
    ),
  );
  return { domain, baseUrl: `https://${settings.domainName}` };
}

/**
 * A REST API custom domain: regional, TLS 1.2 at least, IPv4 and IPv6, the deployment stage
 * mapped at its root, and the alias records when a hosted zone is given.
 */
export function mapRestApiDomain(
  scope: Construct,
  settings: CustomDomainSettings,
  api: apigateway.RestApi,
): MappedDomain<apigateway.DomainName> {
  const domain = new apigateway.DomainName(scope, 'CustomDomain', {
    domainName: settings.domainName,
    certificate: settings.certificate,
    endpointType: apigateway.EndpointType.REGIONAL,
    securityPolicy: apigateway.SecurityPolicy.TLS_1_2,
  });
  // The L2 has no IP address type; the AAAA record needs a dual-stack domain to answer.
  (domain.node.defaultChild as apigateway.CfnDomainName).addPropertyOverride(
    'EndpointConfiguration.IpAddressType',
    'dualstack',
  );
  new apigateway.BasePathMapping(scope, 'CustomDomainMapping', {
    domainName: domain,
    restApi: api,
    stage: api.deploymentStage,
  });
  createAliasRecords(scope, settings, new targets.ApiGatewayDomain(domain));
  return { domain, baseUrl: `https://${settings.domainName}` };
}

/** A and AAAA alias records for the domain in its hosted zone, when one is given. */
function createAliasRecords(
  scope: Construct,
  settings: CustomDomainSettings,
  target: route53.IAliasRecordTarget,
): void {
  if (settings.hostedZone === undefined) return;
  const zone = route53.HostedZone.fromHostedZoneAttributes(
    scope,
    'HostedZone',
    settings.hostedZone,
  );
  const record = {
    zone,
    recordName: settings.domainName,
    target: route53.RecordTarget.fromAlias(target),
  };
  new route53.ARecord(scope, 'CustomDomainAliasA', record);
  new route53.AaaaRecord(scope, 'CustomDomainAliasAaaa', record);
}

/** The id of the synth warning about a custom domain with an allowlist of IPv4 ranges only. */
export const IPV4_ONLY_ALLOWLIST_WARNING = 'service-webhook-receiver:customDomainIpv4OnlyAllowlist';

/**
 * Warns at synth when the custom domain, which answers over IPv4 and IPv6 (its AAAA record), is
 * paired with an `allowedSourceIps` of IPv4 ranges only: a sender whose client prefers IPv6 would
 * reach the domain over IPv6 and be refused 403 on every call.
 */
export function warnOfIpv4OnlyAllowlist(
  scope: Construct,
  settings: Pick<ReceiverSettings, 'customDomain' | 'allowedSourceIps'>,
): void {
  const { customDomain, allowedSourceIps } = settings;
  if (customDomain === undefined || allowedSourceIps === undefined) return;
  if (allowedSourceIps.some((range) => range.includes(':'))) return;
  Annotations.of(scope).addWarningV2(
    IPV4_ONLY_ALLOWLIST_WARNING,
    `domainName ${customDomain.domainName} answers over IPv4 and IPv6, but allowedSourceIps holds IPv4 ranges only: a sender that connects over IPv6 gets 403 source_not_allowed on every call. Add the sender's published IPv6 ranges to allowedSourceIps.`,
  );
}
