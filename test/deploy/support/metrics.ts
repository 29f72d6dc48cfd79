import {
  type CfnTemplate,
  resolveValue,
  resourcesOfType,
} from '../../support/deployed-template.js';
import {
  compileFilterPattern,
  filteredDataPoints,
  templateMetricFilters,
} from '../../support/metric-filters.js';

/** A CloudWatch metric as an alarm names it: namespace, name and the full dimension set. */
export interface MetricIdentity {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string>>;
}

/** One line naming a metric, for messages and comparisons (dimensions sorted). */
export function metricKey({ namespace, name, dimensions }: MetricIdentity): string {
  const dims = Object.entries(dimensions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${value}`);
  return `${namespace} ${name} {${dims.join(',')}}`;
}

interface EmfDirective {
  readonly Namespace: string;
  readonly Dimensions: ReadonlyArray<readonly string[]>;
  readonly Metrics: ReadonlyArray<{ readonly Name: string }>;
}

/**
 * The metrics a function's output publishes through the CloudWatch embedded metric format: each
 * line that is a JSON object with `_aws.CloudWatchMetrics`, one metric per directive, metric and
 * dimension set, the dimension values read from the line's own fields (as CloudWatch does).
 * @param output - what the function printed
 */
export function printedMetrics(output: string): MetricIdentity[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line);
    } catch {
      return [];
    }
    const directives = (parsed._aws as { CloudWatchMetrics?: EmfDirective[] } | undefined)
      ?.CloudWatchMetrics;
    return (directives ?? []).flatMap((directive) =>
      directive.Dimensions.flatMap((set) =>
        directive.Metrics.map((metric) => ({
          namespace: directive.Namespace,
          name: metric.Name,
          dimensions: Object.fromEntries(set.map((key) => [key, String(parsed[key])])),
        })),
      ),
    );
  });
}

/**
 * The metrics a function's output publishes: those its EMF blobs declare ({@link printedMetrics}),
 * and those the template's metric filters on its log group count from its lines.
 * @param template - the synthesized template
 * @param environment - the function's environment (`AWS_LAMBDA_LOG_GROUP_NAME`)
 * @param output - what the function printed
 */
export function publishedMetrics(
  template: CfnTemplate,
  environment: Readonly<Record<string, string>>,
  output: string,
): MetricIdentity[] {
  const filters = templateMetricFilters(template).filter(
    (filter) =>
      resolveValue(template, { Ref: filter.logGroupId }) === environment.AWS_LAMBDA_LOG_GROUP_NAME,
  );
  const filtered = filteredDataPoints(filters, output.split('\n')).map(
    ({ namespace, name, dimensions }) => ({ namespace, name, dimensions }),
  );
  return [...printedMetrics(output), ...filtered];
}

/** A metric that an alarm or a dashboard of the template watches, and which one. */
export interface WatchedMetric extends MetricIdentity {
  readonly watchedBy: string;
}

/**
 * Every metric the template's alarms (`MetricName`, or each `MetricStat` of `Metrics`) and
 * dashboards (each widget's `metrics` rows, written out in full as CDK writes them) name, as deployed.
 * @param template - the synthesized template
 */
export function watchedMetrics(template: CfnTemplate): WatchedMetric[] {
  const resolve = (value: unknown) => resolveValue(template, value);
  const dimensionsOf = (list: unknown) =>
    Object.fromEntries(
      ((list ?? []) as Array<{ Name: string; Value: unknown }>).map(({ Name, Value }) => [
        Name,
        String(resolve(Value)),
      ]),
    );
  const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').flatMap(([id, alarm]) => {
    const props = alarm.Properties ?? {};
    if (props.MetricName !== undefined) {
      return [
        {
          namespace: props.Namespace,
          name: props.MetricName,
          dimensions: dimensionsOf(props.Dimensions),
          watchedBy: id,
        },
      ];
    }
    return (props.Metrics ?? []).flatMap(
      (query: {
        MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions?: unknown } };
      }) =>
        query.MetricStat === undefined
          ? []
          : [
              {
                namespace: query.MetricStat.Metric.Namespace,
                name: query.MetricStat.Metric.MetricName,
                dimensions: dimensionsOf(query.MetricStat.Metric.Dimensions),
                watchedBy: id,
              },
            ],
    );
  });
  const dashboards = resourcesOfType(template, 'AWS::CloudWatch::Dashboard').flatMap(
    ([id, dashboard]) => {
      const body = JSON.parse(String(resolve(dashboard.Properties?.DashboardBody))) as {
        widgets?: Array<{ properties?: { metrics?: unknown[][] } }>;
      };
      return (body.widgets ?? []).flatMap((widget) =>
        (widget.properties?.metrics ?? []).flatMap((row) => {
          // A row: namespace, name, then dimension name and value pairs, then an options object.
          // A row of only an options object is a math expression, which names no metric itself.
          const values = row.filter((value) => typeof value !== 'object').map(String);
          if (values.length === 0) return [];
          if (values.includes('...') || values.includes('.')) {
            throw new Error(`${id}: shorthand metric rows are not read: ${JSON.stringify(row)}`);
          }
          const [namespace, name, ...pairs] = values;
          const dimensions: Record<string, string> = {};
          for (let index = 0; index + 1 < pairs.length; index += 2) {
            dimensions[String(pairs[index])] = String(pairs[index + 1]);
          }
          return [{ namespace: String(namespace), name: String(name), dimensions, watchedBy: id }];
        }),
      );
    },
  );
  return [...alarms, ...dashboards];
}

/**
 * The metrics that the metric filters on the template's API access logs publish (from the
 * stage's lines, not from a function's output), by {@link metricKey} without dimensions.
 */
export function accessLogFilterMetrics(template: CfnTemplate): Set<string> {
  return new Set(
    accessLogFilters(template).map(({ filter }) =>
      metricKey({ namespace: filter.namespace, name: filter.name, dimensions: {} }),
    ),
  );
}

/** The metric filters on an API stage's access log, each with the stage's line format. */
function accessLogFilters(template: CfnTemplate) {
  const stages = [
    ...resourcesOfType(template, 'AWS::ApiGateway::Stage').map(
      ([, stage]) => stage.Properties?.AccessLogSetting,
    ),
    ...resourcesOfType(template, 'AWS::ApiGatewayV2::Stage').map(
      ([, stage]) => stage.Properties?.AccessLogSettings,
    ),
  ].filter((settings) => settings !== undefined);
  return templateMetricFilters(template).flatMap((filter) => {
    const stage = stages.find((settings) =>
      JSON.stringify(settings.DestinationArn).includes(`"${filter.logGroupId}"`),
    );
    return stage === undefined ? [] : [{ filter, format: String(stage.Format) }];
  });
}

/**
 * For each metric filter on an API stage's access log: whether the line the stage writes for a
 * call answered `status` (its `Format` with `$context.status` filled in, every other variable
 * `-`) makes the filter count it.
 * @param template - the synthesized template
 * @param status - the HTTP status of the call
 */
export function accessLogFilterCounts(
  template: CfnTemplate,
  status: number,
): Array<{ readonly metric: string; readonly counted: boolean }> {
  return accessLogFilters(template).map(({ filter, format }) => {
    const line = format
      .replaceAll('$context.status', String(status))
      .replace(/\$context\.[\w.]+/g, '-');
    return {
      metric: metricKey({ namespace: filter.namespace, name: filter.name, dimensions: {} }),
      counted: compileFilterPattern(filter.pattern)(JSON.parse(line)),
    };
  });
}
