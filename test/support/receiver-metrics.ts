import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import { templateTestApp } from '../lib/cdk-app.js';
import type { CfnTemplate } from './deployed-template.js';
import {
  type FilteredDataPoint,
  filteredDataPoints,
  type TemplateMetricFilter,
  templateMetricFilters,
} from './metric-filters.js';

/** A metric value as CloudWatch gets it from the receiver's output. */
export interface ReceiverMetricValue {
  readonly name: string;
  readonly value: number;
  readonly dimensions: Readonly<Record<string, unknown>>;
}

let filters: TemplateMetricFilter[] | undefined;

/**
 * The metric filters the construct puts on the receiver's log group, from a default
 * `WebhookReceiver` synthesized without bundling (once per test file).
 */
export function receiverLogFilters(): TemplateMetricFilter[] {
  if (filters === undefined) {
    const stack = new Stack(templateTestApp(), 'ReceiverMetrics');
    const { receiverFunction } = new WebhookReceiver(stack, 'Receiver', {});
    const logGroup = receiverFunction.logGroup.node.defaultChild as CfnElement;
    filters = templateMetricFilters(
      Template.fromStack(stack).toJSON() as CfnTemplate,
      stack.getLogicalId(logGroup),
    );
  }
  return filters;
}

/**
 * Every metric value the receiver's output gives CloudWatch: the data points of the metric
 * filters on its log group, one per matching line, and the values of its EMF blobs (first
 * dimension set), in the order written.
 *
 * @param text - everything the receiver wrote (stdout and stderr)
 * @param logFilters - the filters to run
 * @default logFilters - {@link receiverLogFilters}
 */
export function receiverMetricValues(
  text: string,
  logFilters: readonly TemplateMetricFilter[] = receiverLogFilters(),
): ReceiverMetricValue[] {
  return text.split('\n').flatMap((line): ReceiverMetricValue[] => {
    if (!line.startsWith('{')) return [];
    const record = JSON.parse(line) as Record<string, unknown>;
    if (!('_aws' in record)) return filteredDataPoints(logFilters, [line]).map(asValue);
    const { CloudWatchMetrics } = record._aws as {
      CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[];
    };
    return CloudWatchMetrics.flatMap((directive) =>
      directive.Metrics.map(({ Name }) => ({
        name: Name,
        value: Number(record[Name]),
        dimensions: Object.fromEntries(
          (directive.Dimensions[0] ?? []).map((dimension) => [dimension, record[dimension]]),
        ),
      })),
    );
  });
}

/**
 * The sum of the values of one metric with exactly these dimensions.
 *
 * @param values - e.g. {@link receiverMetricValues}
 * @param name - the metric name
 * @param dimensions - its full dimension set
 */
export function metricSum(
  values: readonly ReceiverMetricValue[],
  name: string,
  dimensions: Readonly<Record<string, string>>,
): number {
  const key = JSON.stringify(Object.entries(dimensions).sort());
  return values
    .filter(
      (value) =>
        value.name === name && JSON.stringify(Object.entries(value.dimensions).sort()) === key,
    )
    .reduce((sum, value) => sum + value.value, 0);
}

const asValue = ({ name, value, dimensions }: FilteredDataPoint): ReceiverMetricValue => ({
  name,
  value,
  dimensions,
});
