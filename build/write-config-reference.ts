/**
 * `npm run docs`: rewrites `docs/configuration-reference.md` from the settings table (see
 * `config-reference.ts`). Commit what it changes with the change to the table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIG_REFERENCE_FILE, configurationReference } from './config-reference.js';

const text = configurationReference();
let current = '';
try {
  current = readFileSync(CONFIG_REFERENCE_FILE, 'utf8');
} catch {
  // A missing file is written below.
}
if (current !== text) writeFileSync(CONFIG_REFERENCE_FILE, text);
process.stdout.write(`${current === text ? 'unchanged' : 'updated'} ${CONFIG_REFERENCE_FILE}\n`);
