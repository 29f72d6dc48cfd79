import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiThrottledMetricName } from '../../lib/alarms.js';
import { type Synthesized, synthesize } from './synthesize.js';

/** What an API stage writes for a call its throttle turned away, in the order of the format. */
const THROTTLED_CALL: Record<string, string> = {
  '$context.status': '429',
  '$context.integrationStatus': '-',
  '$context.httpMethod': 'POST',
  '$context.routeKey': 'POST /webhook',
  '$context.resourcePath': '/webhook',
};

/** An access log line as API Gateway writes it from the stage's format. */
function accessLogLine(format: string): Record<string, unknown> {
  return JSON.parse(
    format.replace(/\$context\.[A-Za-z.]+/g, (name) => THROTTLED_CALL[name] ?? '-'),
  );
}

/** The stage's access log format, as deployed, for either kind of API. */
function accessLogFormat({ template }: Synthesized): string {
  const resources = Object.values(template.toJSON().Resources) as Array<{
    Type: string;
    // biome-ignore lint/suspicious/noExplicitAny: read as the synthesized template holds them
    Properties: any;
  }>;
  const stage = resources.find(
    ({ Type }) => Type === 'AWS::ApiGatewayV2::Stage' || Type === 'AWS::ApiGateway::Stage',
  );
  // HTTP API stages call it AccessLogSettings, REST API stages AccessLogSetting.
  const settings = stage?.Properties.AccessLogSettings ?? stage?.Properties.AccessLogSetting;
  return settings?.Format ?? '';
}

describe.each(['http-api', 'rest-api'] as const)(
  'Function: createAlarms, apiThrottles with ingress %s',
  (ingress) => {
    let synthesized: Synthesized;

    beforeAll(() => {
      synthesized = synthesize((stack) => ({
        ingress,
        serviceName: 'bookings',
        alarmEmail: 'ops@example.com',
        alarmActions: [new SnsAction(new Topic(stack, 'OpsTopic'))],
      }));
    });

    it('counts every 429 line of the access log in a metric of its own', () => {
      // Prepare
      const { template, receiver, id } = synthesized;

      // Assess: one filter on the access log (the others count the receiver's lines)
      expect(
        Object.values(
          template.findResources('AWS::Logs::MetricFilter', {
            Properties: { LogGroupName: { Ref: id(receiver.accessLogGroup) } },
          }),
        ),
      ).toHaveLength(1);
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        LogGroupName: { Ref: id(receiver.accessLogGroup) },
        FilterPattern: '{ $.status = "429" }',
        MetricTransformations: [
          {
            MetricNamespace: 'ServiceWebhookReceiver',
            MetricName: 'ApiThrottled-bookings',
            MetricValue: '1',
          },
        ],
      });
    });

    it('matches the line the stage writes for a throttled call: its status is the text "429"', () => {
      // Act
      const line = accessLogLine(accessLogFormat(synthesized));

      // Assess: the pattern compares text, so the format must quote the status
      expect(line.status).toBe('429');
    });

    it('raises an alarm on any 429 in 5 minutes, with the actions of every other alarm', () => {
      // Prepare
      const { receiver, resource } = synthesized;
      const alarm = resource(receiver.alarms.apiThrottles).Properties;
      const serverErrors = resource(receiver.alarms.apiServerErrors).Properties;

      // Assess
      expect(alarm).toMatchObject({
        Namespace: 'ServiceWebhookReceiver',
        MetricName: apiThrottledMetricName('bookings'),
        Statistic: 'Sum',
        Period: 300,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(alarm.AlarmActions).toHaveLength(2);
      expect(alarm.AlarmActions).toEqual(serverErrors.AlarmActions);
    });
  },
);

describe('Function: createAlarms, apiThrottles with ingress function-url', () => {
  it('creates no access log filter (no stage, no access log) and keeps the Lambda throttles alarm', () => {
    // Act
    const { template, receiver } = synthesize(() => ({ ingress: 'function-url' }));

    // Assess
    expect(receiver.alarms.apiThrottles).toBeUndefined();
    expect(
      Object.values(template.findResources('AWS::Logs::MetricFilter')).filter(({ Properties }) =>
        Properties.MetricTransformations.some(({ MetricName }: { MetricName: string }) =>
          MetricName.startsWith('ApiThrottled-'),
        ),
      ),
    ).toEqual([]);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
    });
  });

  it('names the metric after the service, so two receivers never share it', () => {
    expect(apiThrottledMetricName('eu')).not.toBe(apiThrottledMetricName('us'));
  });
});
