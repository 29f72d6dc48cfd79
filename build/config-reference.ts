/**
 * The configuration reference, `docs/configuration-reference.md`, written from the settings table
 * (`lambda/contract/settings.ts`) so the documentation cannot drift from what the construct,
 * `cdk synth`, the functions and `npm start` check. `npm run docs` rewrites it; a test fails when
 * the committed file is stale.
 * @module
 */
import { fileURLToPath } from 'node:url';
import { contextKeyOf, type SettingRow } from '../lambda/contract/setting-kinds.js';
import { SETTINGS } from '../lambda/contract/settings.js';

/** The generated file. */
export const CONFIG_REFERENCE_FILE = fileURLToPath(
  new URL('../docs/configuration-reference.md', import.meta.url),
);

/** The command that rewrites {@link CONFIG_REFERENCE_FILE}. */
export const CONFIG_REFERENCE_COMMAND = 'npm run docs';

/** What a value of the row may be, as the row checks it. */
export function settingCheck(row: SettingRow): string {
  switch (row.kind) {
    case 'whole-number':
    case 'duration': {
      const unit = row.kind === 'duration' ? 'seconds' : row.unit;
      const range =
        row.maximum === undefined ? `≥ ${row.minimum}` : `${row.minimum} to ${row.maximum}`;
      return `whole number, ${range} ${unit}`;
    }
    case 'number':
      return `number > ${row.above} ${row.unit}`;
    case 'boolean':
      return '`true` or `false`';
    case 'choice':
      return row.choices.map((choice) => `\`${choice}\``).join(', ');
    case 'text':
      return row.form?.description ?? 'non-empty text';
    case 'arn':
      return `${row.form.description}, in the stack's region`;
    case 'list':
      return `list of ${row.entries}${row.emptyRefused ? '; empty is refused' : ''}`;
  }
}

function defaultOf(row: SettingRow): string {
  if (row.defaultText !== undefined) return row.defaultText;
  const value = row.default;
  if (value === undefined) return 'none';
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

function code(text: string | undefined): string {
  return text === undefined ? '—' : `\`${text}\``;
}

/** The text of {@link CONFIG_REFERENCE_FILE}. */
export function configurationReference(): string {
  const rows = (Object.values(SETTINGS) as SettingRow[]).map(
    (row) =>
      `| \`${row.prop}\` | ${code(contextKeyOf(row))} | ${code(row.variable)} | ${defaultOf(row)} | ${settingCheck(row)} | ${row.summary} |`,
  );
  return [
    '# Settings reference',
    '',
    `<!-- Generated from lambda/contract/settings.ts by \`${CONFIG_REFERENCE_COMMAND}\`: edit the table there, not this file. -->`,
    '',
    'Every prop of the `WebhookReceiver` construct (or of `ReceiverStack`, for the ARNs it imports)',
    'that has a CDK context key or an environment variable. A context key is set with',
    '`npx cdk deploy -c signatureToleranceSeconds=600` or in `cdk.json`; the construct writes the',
    "receiver function's variables, which `npm start` reads from its own environment",
    '(`SIGNATURE_TOLERANCE_SECONDS=600 npm start`). A value that breaks its check is refused by all',
    'of them with the same message, for example',
    '`signatureToleranceSeconds (SIGNATURE_TOLERANCE_SECONDS) must be a whole number from 1 to 3600, got 3601`',
    '(prefixed `context` at synth). An ARN in another region than a stack whose region is known is',
    'refused at synth, naming both regions.',
    '',
    '| prop | context key | variable | default | check | what it does |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
