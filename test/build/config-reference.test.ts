import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_REFERENCE_COMMAND,
  CONFIG_REFERENCE_FILE,
  configurationReference,
} from '../../build/config-reference.js';
import { RECEIVER_SETTINGS } from '../../lambda/contract/settings.js';

describe('Function: configurationReference (npm run docs)', () => {
  it('finds the committed configuration reference up to date with the settings table', () => {
    // Act
    const committed = readFileSync(CONFIG_REFERENCE_FILE, 'utf8');

    // Assess
    expect(
      committed === configurationReference(),
      `docs/configuration-reference.md is stale: run \`${CONFIG_REFERENCE_COMMAND}\` and commit it`,
    ).toBe(true);
  });

  it('gives every setting a row with its variable, default and range', () => {
    // Act
    const text = configurationReference();

    // Assess
    for (const setting of Object.values(RECEIVER_SETTINGS)) {
      expect(text).toContain(
        `| \`${setting.prop}\` | \`${setting.variable}\` | ${setting.default} |`,
      );
    }
    expect(text).toContain(
      '| `signatureToleranceSeconds` | `SIGNATURE_TOLERANCE_SECONDS` | 300 | 1 to 3600 |',
    );
  });
});
