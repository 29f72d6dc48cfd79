import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The cdk-nag packs whose findings the construct answers: AWS Solutions and Serverless. */
type NagPack = 'AwsSolutions' | 'Serverless';

/** One accepted cdk-nag finding: the rule (with `[...]` detail when it has one) and why. */
export interface NagAcknowledgement {
  readonly pack: NagPack;
  /** The rule as cdk-nag reports it, e.g. `AwsSolutions-APIG4` or `Serverless-LambdaTracing`. */
  readonly rule: string;
  /** One sentence starting with the rule id and its subject in parentheses. */
  readonly reason: string;
}

/**
 * Acknowledges cdk-nag findings on one of the construct's own resources, so an app that applies
 * the packs to a stack holding the construct sees them as suppressed, with the reason.
 * (`<pack>::` names the cdk-nag plugin in CDK's validation report.)
 */
export function acknowledgeNagFindings(
  resource: IConstruct,
  ...acknowledgements: NagAcknowledgement[]
): void {
  Validations.of(resource).acknowledge(
    ...acknowledgements.map(({ pack, rule, reason }) => ({ id: `${pack}::${rule}`, reason })),
  );
}
