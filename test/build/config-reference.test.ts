import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_REFERENCE_COMMAND,
  CONFIG_REFERENCE_FILE,
  configurationReference,
} from '../../build/config-reference.js';
import { SETTINGS } from '../../lambda/contract/settings.js';

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

  it('gives every setting a row with its context key, variable, default and check', () => {
    // Act
    const text = configurationReference();

    // Assess
    for (const setting of Object.values(SETTINGS)) {
      expect(text).toContain(`| \`${setting.prop}\` |`);
    }
    expect(text).toContain(
      '| `signatureToleranceSeconds` | `signatureToleranceSeconds` | `SIGNATURE_TOLERANCE_SECONDS` | `300` | whole number, 1 to 3600 seconds |',
    );
    expect(text).toContain(
      '| `allowedSourceIps` | `allowedSourceIps` | `ALLOWED_SOURCE_IPS` | every source | list of IPv4 or IPv6 CIDRs or addresses, at least one; empty is refused |',
    );
    expect(text).toContain('| `serviceName` | — | `POWERTOOLS_SERVICE_NAME` |');
  });
});
