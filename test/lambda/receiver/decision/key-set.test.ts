import { describe, expect, it } from 'vitest';
import {
  acceptedKeysFrom,
  isPreviousKeyInGrace,
  stageVersionIds,
} from '../../../../lambda/receiver/decision/key-set.js';

const NOW = 1_795_000_000;
const DAY = 86_400;
const version = (secretString: string | undefined) => ({ secretString, createdAt: new Date(0) });

describe('Function: stageVersionIds', () => {
  it('finds the version of each stage when all three are present', () => {
    // Prepare
    const map = { v3: ['AWSPENDING'], v2: ['AWSCURRENT'], v1: ['AWSPREVIOUS'], v0: ['custom'] };

    // Act
    const ids = stageVersionIds(map);

    // Assess
    expect(ids).toEqual({ current: 'v2', pending: 'v3', previous: 'v1' });
  });

  it('leaves out stages that no version carries', () => {
    // Prepare
    const map = { v1: ['AWSCURRENT'] };

    // Act
    const ids = stageVersionIds(map);

    // Assess
    expect(ids).toEqual({ current: 'v1' });
  });

  it('returns the same version for two stages when one version carries both', () => {
    // Prepare
    const map = { v2: ['AWSCURRENT', 'AWSPENDING'], v1: ['AWSPREVIOUS'] };

    // Act
    const ids = stageVersionIds(map);

    // Assess
    expect(ids).toEqual({ current: 'v2', pending: 'v2', previous: 'v1' });
  });

  it('returns no stages when the map is missing', () => {
    // Act
    const ids = stageVersionIds(undefined);

    // Assess
    expect(ids).toEqual({});
  });
});

describe('Function: isPreviousKeyInGrace', () => {
  it('accepts the previous key while the current version is younger than the grace period', () => {
    // Prepare
    const createdAt = new Date((NOW - DAY + 1) * 1000);

    // Act
    const inGrace = isPreviousKeyInGrace(createdAt, NOW, DAY);

    // Assess
    expect(inGrace).toBe(true);
  });

  it('rejects the previous key once the current version is as old as the grace period', () => {
    // Prepare
    const createdAt = new Date((NOW - DAY) * 1000);

    // Act
    const inGrace = isPreviousKeyInGrace(createdAt, NOW, DAY);

    // Assess
    expect(inGrace).toBe(false);
  });

  it('rejects the previous key when the grace period is 0 (turned off)', () => {
    // Prepare
    const createdAt = new Date(NOW * 1000);

    // Act
    const inGrace = isPreviousKeyInGrace(createdAt, NOW, 0);

    // Assess
    expect(inGrace).toBe(false);
  });

  it('rejects the previous key when the creation date is unknown (fails closed)', () => {
    // Act
    const inGrace = isPreviousKeyInGrace(undefined, NOW, DAY);

    // Assess
    expect(inGrace).toBe(false);
  });
});

describe('Function: acceptedKeysFrom', () => {
  it('orders keys current, pending, previous and labels each with its stage', () => {
    // Act
    const result = acceptedKeysFrom({
      current: version('key-current'),
      pending: version('key-pending'),
      previous: version('key-previous'),
    });

    // Assess
    expect(result).toEqual({
      ok: true,
      accepted: {
        keys: ['key-current', 'key-pending', 'key-previous'],
        labels: ['AWSCURRENT', 'AWSPENDING', 'AWSPREVIOUS'],
      },
      skipped: [],
    });
  });

  it('trims whitespace around keys when a key was stored with a trailing newline', () => {
    // Act
    const result = acceptedKeysFrom({ current: version('  key-current\n') });

    // Assess
    expect(result).toEqual({
      ok: true,
      accepted: { keys: ['key-current'], labels: ['AWSCURRENT'] },
      skipped: [],
    });
  });

  it('skips a pending or previous key equal to one already listed', () => {
    // Act
    const result = acceptedKeysFrom({
      current: version('same-key'),
      pending: version('same-key\n'),
      previous: version('old-key'),
    });

    // Assess
    expect(result).toEqual({
      ok: true,
      accepted: { keys: ['same-key', 'old-key'], labels: ['AWSCURRENT', 'AWSPREVIOUS'] },
      skipped: [],
    });
  });

  it('skips an empty pending key', () => {
    // Act
    const result = acceptedKeysFrom({ current: version('key-current'), pending: version('  ') });

    // Assess
    expect(result).toEqual({
      ok: true,
      accepted: { keys: ['key-current'], labels: ['AWSCURRENT'] },
      skipped: [{ stage: 'AWSPENDING', problem: 'holds no usable key: the key is empty' }],
    });
  });

  it('fails when the current key is empty, even if other stages hold keys', () => {
    // Act
    const result = acceptedKeysFrom({ current: version(' \n'), pending: version('key-pending') });

    // Assess
    expect(result).toEqual({
      ok: false,
      problem: 'AWSCURRENT holds no usable key: the key is empty',
    });
  });
});

describe('Function: acceptedKeysFrom (secret formats)', () => {
  it('reads the key out of the JSON object the console key/value form stores', () => {
    // Act
    const result = acceptedKeysFrom({ current: version('{"webhook_secret":"key-current"}') });

    // Assess
    expect(result).toMatchObject({ ok: true, accepted: { keys: ['key-current'] } });
  });

  it('reads the field named by SECRET_JSON_FIELD when the object has several', () => {
    // Act
    const result = acceptedKeysFrom(
      { current: version('{"user":"booking","signing_key":"key-current"}') },
      'signing_key',
    );

    // Assess
    expect(result).toMatchObject({ ok: true, accepted: { keys: ['key-current'] } });
  });

  it('fails naming the fields, never a value, when several fields and no SECRET_JSON_FIELD', () => {
    // Act
    const result = acceptedKeysFrom({ current: version('{"user":"booking","key":"s3cr3t"}') });

    // Assess
    expect(result).toEqual({
      ok: false,
      problem:
        'AWSCURRENT holds no usable key: the value is a JSON object with fields "user", "key" and not exactly one text field: set SECRET_JSON_FIELD to the field that holds the key',
    });
    expect(JSON.stringify(result)).not.toContain('s3cr3t');
  });

  it('skips a binary-only pending or previous version and keeps the current key', () => {
    // Act
    const result = acceptedKeysFrom({
      current: version('key-current'),
      pending: version(undefined),
      previous: version(undefined),
    });

    // Assess
    expect(result).toMatchObject({
      ok: true,
      accepted: { keys: ['key-current'], labels: ['AWSCURRENT'] },
      skipped: [
        { stage: 'AWSPENDING', problem: expect.stringContaining('only SecretBinary') },
        { stage: 'AWSPREVIOUS', problem: expect.stringContaining('only SecretBinary') },
      ],
    });
  });

  it('fails when the current version holds only SecretBinary', () => {
    // Act
    const result = acceptedKeysFrom({ current: version(undefined), pending: version('key') });

    // Assess
    expect(result).toEqual({
      ok: false,
      problem: 'AWSCURRENT holds only SecretBinary: store the key as text (SecretString)',
    });
  });
});
