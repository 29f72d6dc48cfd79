import * as logs from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import {
  compileFilterPattern,
  filteredDataPoints,
  type TemplateMetricFilter,
} from './metric-filters.js';

const { FilterPattern } = logs;

/** A line as the receiver writes it for a call answered 401. */
const REJECTED = {
  level: 'WARN',
  message: 'Webhook rejected',
  service: 'bookings',
  outcome: 'rejected',
  status: 401,
  reason: 'signature_mismatch',
};

describe('Function: compileFilterPattern', () => {
  it.each([
    ['{ $.outcome = "rejected" }', true],
    ['{ $.outcome = "queued" }', false],
    ['{ $.outcome = "rej*" }', true],
    ['{ $.outcome = * }', true],
    ['{ $.missing = "*" }', false],
    ['{ $.status = 401 }', true],
    ['{ $.status = "401" }', false],
    ['{ $.reason = 401 }', false],
    ['{ $.status >= 400 && $.status < 500 }', true],
    ['{ $.outcome != "queued" }', true],
    ['{ ($.outcome = "queued") || ($.status = 401) }', true],
    ['{ (($.outcome = "queued") || ($.outcome = "ignored")) && ($.service = "*") }', false],
  ])('reads %s as %s for a rejected call', (pattern, expected) => {
    // Act
    const matches = compileFilterPattern(pattern);

    // Assess
    expect(matches(REJECTED)).toBe(expected);
  });

  it('reads the patterns CDK writes: all, any, exists, stringValue and numberValue', () => {
    // Prepare
    const pattern = FilterPattern.all(
      FilterPattern.any(
        FilterPattern.stringValue('$.outcome', '=', 'queued'),
        FilterPattern.stringValue('$.outcome', '=', 'rejected'),
      ),
      FilterPattern.numberValue('$.status', '=', 401),
      FilterPattern.exists('$.service'),
    ).logPatternString;

    // Act
    const matches = compileFilterPattern(pattern);

    // Assess
    expect(matches(REJECTED)).toBe(true);
    expect(matches({ ...REJECTED, status: 400 })).toBe(false);
    expect(matches({ ...REJECTED, service: undefined })).toBe(false);
  });

  it.each([
    ['an unstructured pattern', 'ERROR'],
    ['&& and || mixed without parentheses', '{ $.a = 1 && $.b = 2 || $.c = 3 }'],
    ['an EXISTS test', '{ $.a NOT EXISTS }'],
    ['a number operator on a string', '{ $.a > "x" }'],
    ['unbalanced parentheses', '{ ($.a = 1 }'],
  ])('refuses %s rather than guess', (_, pattern) => {
    // Act
    const compile = () => compileFilterPattern(pattern);

    // Assess
    expect(compile).toThrow();
  });
});

describe('Function: filteredDataPoints', () => {
  const filter: TemplateMetricFilter = {
    id: 'RejectedByReason',
    logGroupId: 'Logs',
    pattern: '{ ($.outcome = "rejected") && ($.reason = "*") }',
    namespace: 'ServiceWebhookReceiver',
    name: 'WebhookRejected',
    value: '1',
    dimensions: [
      ['service', '$.service'],
      ['reason', '$.reason'],
    ],
  };

  it('publishes one data point per matching JSON line, its dimensions read from the line', () => {
    // Prepare
    const lines = [
      JSON.stringify(REJECTED),
      'START RequestId: 1',
      JSON.stringify({ ...REJECTED, outcome: 'queued' }),
      JSON.stringify({ ...REJECTED, reason: 'timestamp_too_old' }),
    ];

    // Act
    const points = filteredDataPoints([filter], lines);

    // Assess
    expect(points).toEqual([
      {
        namespace: 'ServiceWebhookReceiver',
        name: 'WebhookRejected',
        value: 1,
        dimensions: { service: 'bookings', reason: 'signature_mismatch' },
      },
      {
        namespace: 'ServiceWebhookReceiver',
        name: 'WebhookRejected',
        value: 1,
        dimensions: { service: 'bookings', reason: 'timestamp_too_old' },
      },
    ]);
  });

  it('throws when a matching line lacks a dimension field', () => {
    // Prepare
    const line = JSON.stringify({ ...REJECTED, service: undefined });

    // Act
    const run = () => filteredDataPoints([filter], [line]);

    // Assess
    expect(run).toThrow(/without \$\.service/);
  });
});
