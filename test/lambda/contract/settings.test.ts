import { describe, expect, it } from 'vitest';
import { checkWholeNumber, RECEIVER_SETTINGS } from '../../../lambda/contract/settings.js';

describe('Function: checkWholeNumber', () => {
  const tolerance = RECEIVER_SETTINGS.signatureToleranceSeconds;

  it.each([
    [1, 1],
    ['3600', 3600],
    [' 300 ', 300],
  ])('takes %j as %d', (given, value) => {
    expect(checkWholeNumber(tolerance, given)).toEqual({ ok: true, value });
  });

  it.each([0, 3601, '5m', '1.5', '', '-1', 1.5])(
    'refuses %j, naming the prop, the variable and the range',
    (given) => {
      expect(checkWholeNumber(tolerance, given)).toEqual({
        ok: false,
        message: `signatureToleranceSeconds (SIGNATURE_TOLERANCE_SECONDS) must be a whole number from 1 to 3600, got ${String(given)}`,
      });
    },
  );

  it('states a lower bound alone for a setting without a maximum', () => {
    expect(checkWholeNumber(RECEIVER_SETTINGS.previousKeyGraceSeconds, -1)).toEqual({
      ok: false,
      message:
        'previousKeyGraceSeconds (PREVIOUS_KEY_GRACE_SECONDS) must be a whole number of at least 0, got -1',
    });
  });

  it('keeps every default inside its own range', () => {
    for (const setting of Object.values(RECEIVER_SETTINGS)) {
      expect(checkWholeNumber(setting, setting.default)).toEqual({
        ok: true,
        value: setting.default,
      });
    }
  });
});
