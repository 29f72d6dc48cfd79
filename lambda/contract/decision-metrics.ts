/**
 * The receiver's per-call metrics and the decision line they are counted from. Every answered
 * call writes one decision line, a JSON object carrying the fields below; CloudWatch Logs metric
 * filters on the receiver's log group count those lines, so a call is counted in the minute it
 * was answered, even when its environment is shut down right after, and the metrics add no byte
 * or CPU per call. The receiver writes the fields, the construct defines the filters: both read
 * this table.
 * @module
 */
import { ENDPOINT_DIMENSION, METRIC_NAMES } from './metric-names.js';
import { SOURCE_NOT_ALLOWED } from './source-allowlist.js';

/** The fields of a decision line that the metric filters read. */
export const DECISION_FIELDS = {
  /** What became of the call: a {@link DecisionOutcome}. Only decision lines carry it. */
  outcome: 'outcome',
  /** The HTTP status answered (a number); a queued call's line leaves it out. */
  status: 'status',
  /** Why a call was refused or not accepted. */
  reason: 'reason',
  /** The named endpoint the call came in on, when the receiver serves several. */
  endpoint: ENDPOINT_DIMENSION,
  /** The receiver's service name (`POWERTOOLS_SERVICE_NAME`): the metrics' `service` dimension. */
  service: 'service',
} as const;

/** A field of the decision line. */
export type DecisionField = (typeof DECISION_FIELDS)[keyof typeof DECISION_FIELDS];

/** The `outcome` of a decision line. */
export type DecisionOutcome = 'queued' | 'ignored' | 'rejected' | 'unavailable';

/** A metric counted from decision lines: one for each line that matches every condition given. */
export interface DecisionMetric {
  readonly name: string;
  /** The outcomes counted; every decision line when absent. */
  readonly outcomes?: readonly DecisionOutcome[];
  /** Only lines answered with this status. */
  readonly status?: number;
  /** Only lines with this reason. */
  readonly reason?: string;
  /**
   * The fields whose values are the metric's dimensions, `service` first. A line without one of
   * them is not counted in this metric.
   */
  readonly dimensions: readonly DecisionField[];
}

const { service, reason, endpoint } = DECISION_FIELDS;
const VERIFIED: readonly DecisionOutcome[] = ['queued', 'ignored'];

/**
 * Every per-call metric, as the alarms and the dashboard read them: totals under `service`, the
 * rejections also by `reason`, and, for a receiver serving named endpoints, verified and rejected
 * calls by `endpoint`.
 */
export const DECISION_METRICS: readonly DecisionMetric[] = [
  { name: METRIC_NAMES.received, dimensions: [service] },
  { name: METRIC_NAMES.forwarded, outcomes: ['queued'], dimensions: [service] },
  { name: METRIC_NAMES.ignored, outcomes: ['ignored'], dimensions: [service] },
  { name: METRIC_NAMES.verified, outcomes: VERIFIED, dimensions: [service] },
  { name: METRIC_NAMES.rejected, outcomes: ['rejected'], dimensions: [service] },
  { name: METRIC_NAMES.rejected, outcomes: ['rejected'], dimensions: [service, reason] },
  {
    name: METRIC_NAMES.signatureRejected,
    outcomes: ['rejected'],
    status: 401,
    dimensions: [service],
  },
  {
    name: METRIC_NAMES.sourceNotAllowed,
    outcomes: ['rejected'],
    reason: SOURCE_NOT_ALLOWED,
    dimensions: [service],
  },
  { name: METRIC_NAMES.verified, outcomes: VERIFIED, dimensions: [service, endpoint] },
  { name: METRIC_NAMES.rejected, outcomes: ['rejected'], dimensions: [service, endpoint] },
];
