import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** A log group the construct owns, kept for the configured retention. */
export function createLogGroup(
  scope: Construct,
  id: string,
  retention: logs.RetentionDays,
): logs.LogGroup {
  return new logs.LogGroup(scope, id, { retention });
}
