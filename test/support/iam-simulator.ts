import { anonymousPrincipal, runSimulation } from '@cloud-copilot/iam-simulate';
import { DEPLOY_ACCOUNT, type NamedPolicy } from './deployed-template.js';

/** A request to an AWS API as IAM authorizes it. */
export interface SimulatedRequest {
  /** A role ARN, a service principal (`apigateway.amazonaws.com`) or `'anonymous'`. */
  readonly principal: string;
  readonly action: string;
  readonly resource: string;
  /** Condition keys the request carries (`kms:ViaService`, `aws:SourceArn`, …). */
  readonly context?: Readonly<Record<string, string>>;
}

/**
 * The verdict of the IAM policy simulator (@cloud-copilot/iam-simulate, AGPL-3.0, a test-only
 * devDependency) on one request: `Allowed`, `ImplicitlyDenied` or `ExplicitlyDenied`. An
 * anonymous request has no identity policies.
 * @param request - who calls what on which resource
 * @param identityPolicies - the caller's identity policies as deployed
 * @param resourcePolicy - the resource's policy as deployed, if it has one
 * @throws Error when the simulator refuses the request or a policy (an unknown action, a resource
 *   of the wrong type): a mistake in the test or the template, never a verdict
 */
export async function simulate(
  request: SimulatedRequest,
  identityPolicies: readonly NamedPolicy[],
  resourcePolicy?: unknown,
): Promise<string> {
  const anonymous = request.principal === 'anonymous';
  const result = await runSimulation(
    {
      request: {
        principal: anonymous ? anonymousPrincipal : request.principal,
        action: request.action,
        resource: { resource: request.resource, accountId: DEPLOY_ACCOUNT },
        contextVariables: { ...request.context },
      },
      identityPolicies: anonymous ? [] : [...identityPolicies],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy === undefined ? {} : { resourcePolicy }),
    },
    {},
  );
  if (result.resultType === 'error') {
    throw new Error(`${request.action} on ${request.resource}: ${JSON.stringify(result.errors)}`);
  }
  return result.overallResult;
}
