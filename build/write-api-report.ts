/**
 * `npm run api-report`: rewrites the package's API report in `docs/api/` from the current code
 * (see `api-report.ts`). Commit what it changes with the change to the public surface.
 */
import { join } from 'node:path';
import { API_REPORT_FOLDER, apiReports } from './api-report.js';

let failed = false;
for (const { entryPoint, changed, problems } of apiReports(true)) {
  const file = join(API_REPORT_FOLDER, `${entryPoint.reportName}.api.md`);
  process.stdout.write(`${entryPoint.specifier}: ${changed ? 'updated' : 'unchanged'} ${file}\n`);
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  failed ||= problems.length > 0;
}
process.exitCode = failed ? 1 : 0;
