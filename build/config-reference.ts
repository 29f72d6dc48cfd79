/**
 * The receiver's configuration reference, `docs/configuration-reference.md`, written from the
 * settings table (`lambda/contract/settings.ts`) so the documentation cannot drift from what the
 * construct, the Lambda and `npm start` check. `npm run docs` rewrites it; a test fails when the
 * committed file is stale.
 * @module
 */
import { fileURLToPath } from 'node:url';
import { RECEIVER_SETTINGS, type WholeNumberSetting } from '../lambda/contract/settings.js';

/** The generated file. */
export const CONFIG_REFERENCE_FILE = fileURLToPath(
  new URL('../docs/configuration-reference.md', import.meta.url),
);

/** The command that rewrites {@link CONFIG_REFERENCE_FILE}. */
export const CONFIG_REFERENCE_COMMAND = 'npm run docs';

function range({ minimum, maximum }: WholeNumberSetting): string {
  return maximum === undefined ? `≥ ${minimum}` : `${minimum} to ${maximum}`;
}

/** The text of {@link CONFIG_REFERENCE_FILE}. */
export function configurationReference(): string {
  const rows = Object.values(RECEIVER_SETTINGS).map(
    (setting: WholeNumberSetting) =>
      `| \`${setting.prop}\` | \`${setting.variable}\` | ${setting.default} | ${range(setting)} | ${setting.unit} | ${setting.summary} |`,
  );
  return [
    '# Receiver settings',
    '',
    `<!-- Generated from lambda/contract/settings.ts by \`${CONFIG_REFERENCE_COMMAND}\`: edit the table there, not this file. -->`,
    '',
    'Each setting is a prop of the `WebhookReceiver` construct and a CDK context key of the same',
    'name (`npx cdk deploy -c signatureToleranceSeconds=600`); the construct writes it into the',
    "receiver function's environment variable, which `npm start` reads from its own environment",
    '(`SIGNATURE_TOLERANCE_SECONDS=600 npm start`). A value out of range is refused by all of them',
    'with the same message, for example',
    '`signatureToleranceSeconds (SIGNATURE_TOLERANCE_SECONDS) must be a whole number from 1 to 3600, got 3601`.',
    '',
    '| prop and context key | variable | default | range | unit | what it does |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
