import { describe, expect, it } from 'vitest';
import {
  describeSecretKeyFailure,
  keyFromSecretValue,
  replaceKeyInSecretValue,
} from '../../../../lambda/receiver/decision/secret-value.js';

describe('Function: keyFromSecretValue', () => {
  it.each([
    ['text, trimmed', '  whsec_key\n', undefined, 'whsec_key'],
    ['text that looks like JSON but is not an object', '["whsec_key"]', undefined, '["whsec_key"]'],
    ['text starting with { that is not JSON', '{whsec_key', undefined, '{whsec_key'],
    ['the only field of a JSON object', '{"webhook_secret":" whsec_key "}', undefined, 'whsec_key'],
    [
      'the only text field beside others',
      '{"key":"whsec_key","version":2}',
      undefined,
      'whsec_key',
    ],
    ['the named field', '{"user":"u","key":"whsec_key"}', 'key', 'whsec_key'],
  ])('reads %s', (_, value, field, key) => {
    // Act
    const result = keyFromSecretValue(value, field);

    // Assess
    expect(result).toEqual({ ok: true, key });
  });

  it.each([
    ['blank text', ' \n', undefined, { reason: 'empty' }],
    ['an empty named field', '{"key":"  "}', 'key', { reason: 'empty' }],
    [
      'several text fields',
      '{"user":"u","key":"k"}',
      undefined,
      { reason: 'ambiguous_fields', fields: ['user', 'key'] },
    ],
    ['no text field', '{"key":1}', undefined, { reason: 'ambiguous_fields', fields: ['key'] }],
    [
      'a missing named field',
      '{"user":"u"}',
      'key',
      { reason: 'field_not_found', field: 'key', fields: ['user'] },
    ],
    [
      'a named field that is not text',
      '{"key":{"v":"k"}}',
      'key',
      { reason: 'field_not_string', field: 'key', fields: ['key'] },
    ],
  ])('fails on %s', (_, value, field, failure) => {
    // Act
    const result = keyFromSecretValue(value, field);

    // Assess
    expect(result).toEqual({ ok: false, ...failure });
  });

  it('describes a failure by field names only, never a value', () => {
    // Prepare
    const result = keyFromSecretValue('{"user":"secret-user","key":"secret-key"}');

    // Act
    const text = result.ok ? '' : describeSecretKeyFailure(result);

    // Assess
    expect(text).toBe(
      'the value is a JSON object with fields "user", "key" and not exactly one text field: set SECRET_JSON_FIELD to the field that holds the key',
    );
  });
});

describe('Function: replaceKeyInSecretValue', () => {
  it.each([
    ['text', 'old', undefined, 'new'],
    [
      'the only text field',
      '{"webhook_secret":"old","v":2}',
      undefined,
      '{"webhook_secret":"new","v":2}',
    ],
    ['the named field', '{"user":"u","key":"old"}', 'key', '{"user":"u","key":"new"}'],
  ])('replaces the key in %s, keeping the shape', (_, value, field, replaced) => {
    // Act
    const result = replaceKeyInSecretValue(value, 'new', field);

    // Assess
    expect(result).toEqual({ ok: true, secretString: replaced });
  });

  it('refuses to guess which of several fields holds the key', () => {
    // Act
    const result = replaceKeyInSecretValue('{"user":"u","key":"old"}', 'new');

    // Assess
    expect(result).toMatchObject({ ok: false, reason: 'ambiguous_fields' });
  });
});
