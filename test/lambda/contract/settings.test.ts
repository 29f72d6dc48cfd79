import { describe, expect, it } from 'vitest';
import { readSetting } from '../../../lambda/contract/environment.js';
import { checkSetting, type SettingRow } from '../../../lambda/contract/setting-kinds.js';
import { SETTINGS } from '../../../lambda/contract/settings.js';

describe('Function: checkSetting', () => {
  const tolerance = SETTINGS.signatureToleranceSeconds;

  it.each([
    [1, 1],
    ['3600', 3600],
    [' 300 ', 300],
  ])('takes %j as %d', (given, value) => {
    expect(checkSetting(tolerance, given)).toEqual({ ok: true, value });
  });

  it.each([0, 3601, '5m', '1.5', '', '-1', 1.5])(
    'refuses %j, naming the prop, the variable and the range',
    (given) => {
      expect(checkSetting(tolerance, given)).toEqual({
        ok: false,
        message: `signatureToleranceSeconds (SIGNATURE_TOLERANCE_SECONDS) must be a whole number from 1 to 3600, got ${String(given)}`,
      });
    },
  );

  it('states a lower bound alone for a setting without a maximum', () => {
    expect(checkSetting(SETTINGS.previousKeyGraceSeconds, -1)).toEqual({
      ok: false,
      message:
        'previousKeyGraceSeconds (PREVIOUS_KEY_GRACE_SECONDS) must be a whole number of at least 0, got -1',
    });
  });

  it('keeps every default inside its own check', () => {
    for (const row of Object.values(SETTINGS) as SettingRow[]) {
      if (row.default === undefined) continue;
      expect(checkSetting(row, row.default), row.prop).toEqual({ ok: true, value: row.default });
    }
  });

  it.each([
    [SETTINGS.fifo, 'yes', 'fifo must be true or false, got "yes"'],
    [SETTINGS.ingress, 'alb', 'ingress must be one of http-api, rest-api, function-url, got "alb"'],
    [SETTINGS.alarmEmail, 'ops', 'alarmEmail must be an e-mail address, got "ops"'],
    [SETTINGS.throttleRateLimit, '0', 'throttleRateLimit must be a number above 0, got 0'],
    [
      SETTINGS.secretJsonField,
      ' ',
      'secretJsonField (SECRET_JSON_FIELD) must be non-empty text, got " "',
    ],
    [
      SETTINGS.forwardEvents,
      { a: 1 },
      'forwardEvents (FORWARD_EVENTS) must be a comma-separated list or an array of texts, got {"a":1}',
    ],
    [
      SETTINGS.forwardEvents,
      'event_booked,*',
      "forwardEvents (FORWARD_EVENTS) must be '*' alone or a list of event names",
    ],
    [
      SETTINGS.allowedSourceIps,
      '203.0.113.7/24',
      'allowedSourceIps (ALLOWED_SOURCE_IPS) entry "203.0.113.7/24" has bits set after its /24 prefix: write 203.0.113.0/24 for the range, or 203.0.113.7/32 for this one address',
    ],
    [
      SETTINGS.allowedSourceIps,
      '',
      'allowedSourceIps (ALLOWED_SOURCE_IPS) names no range: leave the setting out to let every source in',
    ],
    [
      SETTINGS.certificateArn,
      'arn:aws:acm:eu-west-1:123456789012:certificate',
      'certificateArn must be an ACM certificate ARN, got "arn:aws:acm:eu-west-1:123456789012:certificate"',
    ],
    [
      SETTINGS.idempotencyTtl,
      '0.5',
      'idempotencyTtl (IDEMPOTENCY_TTL_SECONDS), in seconds, must be a whole number of at least 1, got 0.5',
    ],
  ] as const)('refuses a bad value of each kind in its one form: %#', (row, given, message) => {
    expect(checkSetting(row, given)).toEqual({ ok: false, message });
  });

  it('reads a list from text and from an array alike, trimmed, and normalises an allowlist', () => {
    expect(checkSetting(SETTINGS.allowedSourceIps, ' 203.0.113.7 , 2001:db8::/32')).toEqual({
      ok: true,
      value: ['203.0.113.7/32', '2001:db8::/32'],
    });
    expect(checkSetting(SETTINGS.forwardEvents, ['a', ' b '])).toEqual({
      ok: true,
      value: ['a', 'b'],
    });
  });
});

describe('Function: readSetting', () => {
  it('gives the default when the variable is unset or empty', () => {
    expect(readSetting({}, SETTINGS.maxBodyBytes)).toBe(262_144);
    expect(readSetting({ MAX_BODY_BYTES: ' ' }, SETTINGS.maxBodyBytes)).toBe(262_144);
    expect(readSetting({}, SETTINGS.secretJsonField)).toBeUndefined();
  });
});
