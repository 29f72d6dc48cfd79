import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  API_REPORT_COMMAND,
  API_REPORT_FOLDER,
  apiEntryPoints,
  apiReports,
} from '../../build/api-report.js';

describe('Function: apiReports (npm run api-report)', () => {
  it('finds the committed API report of every entry point up to date', () => {
    // Act
    const outcomes = apiReports(false);

    // Assess
    const stale = outcomes.filter(({ changed }) => changed).map(({ entryPoint }) => entryPoint);
    expect(
      stale.map(({ specifier }) => specifier),
      `The public API differs from its report in docs/api/: run \`${API_REPORT_COMMAND}\`, review the change and commit it`,
    ).toEqual([]);
    expect(outcomes.flatMap(({ problems }) => problems)).toEqual([]);
  }, 180_000);

  it('keeps one report per entry point of package.json, and no other', () => {
    // Act
    const reports = readdirSync(API_REPORT_FOLDER).sort();

    // Assess
    const expected = apiEntryPoints().map(({ reportName }) => `${reportName}.api.md`);
    expect(reports).toEqual(expected.sort());
    expect(expected).toHaveLength(3);
  });
});
