import { describe, expect, it } from 'vitest';
import {
  acceptedKeysFrom,
  isPreviousKeyInGrace,
  stageVersionIds,
} from '../../../lambda/core/key-set.js';

const NOW = 1_795_000_000;
const DAY = 86_400;
const version = (secretString: string) => ({ secretString, createdAt: new Date(0) });

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
    });
  });

  it('trims whitespace around keys when a key was stored with a trailing newline', () => {
    // Act
    const result = acceptedKeysFrom({ current: version('  key-current\n') });

    // Assess
    expect(result).toEqual({
      ok: true,
      accepted: { keys: ['key-current'], labels: ['AWSCURRENT'] },
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
    });
  });

  it('skips an empty pending key', () => {
    // Act
    const result = acceptedKeysFrom({ current: version('key-current'), pending: version('  ') });

    // Assess
    expect(result).toEqual({
      ok: true,
      accepted: { keys: ['key-current'], labels: ['AWSCURRENT'] },
    });
  });

  it('fails when the current key is empty, even if other stages hold keys', () => {
    // Act
    const result = acceptedKeysFrom({ current: version(' \n'), pending: version('key-pending') });

    // Assess
    expect(result).toEqual({ ok: false, reason: 'current_key_empty' });
  });
});
