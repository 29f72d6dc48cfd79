import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/**
 * Where a log group that an AWS service delivers logs to belongs: once the account's CloudWatch
 * Logs resource policy nears its size limit, it admits this prefix as a whole and no other name.
 */
export const VENDED_LOGS_PREFIX = '/aws/vendedlogs/';

/**
 * A log group the construct owns, kept for the configured retention.
 *
 * @param name - its name; CloudFormation generates one when absent
 */
export function createLogGroup(
  scope: Construct,
  id: string,
  retention: logs.RetentionDays,
  name?: string,
): logs.LogGroup {
  return new logs.LogGroup(scope, id, { retention, ...(name && { logGroupName: name }) });
}
