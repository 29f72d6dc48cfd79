import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

/** The most lines a source file outside test/ holds: a file a newcomer can read in one sitting. */
const MAX_SOURCE_LINES = 400;

/** Folders whose comments say what holds and why, never when something was measured or its price. */
const NO_DATES_OR_PRICES_IN = ['lib/', 'lambda/'];

/** A calendar date (2026-11-27, 2026/11/27, October 2025, 27 Oct 2025) or an amount of money. */
const DATE_OR_PRICE =
  /\b(19|20)\d\d[-/](0[1-9]|1[0-2])\b|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? (\d{1,2}, )?(19|20)\d\d\b|[$€£] ?\d|\b\d+(\.\d+)? ?(USD|EUR|dollars?|cents?)\b/;

/** Batch sends exist for throughput a Lambda environment, serving one call at a time, never sees. */
const BATCH_COMMANDS = /\b(SendMessageBatchCommand|PutRecordBatchCommand)\b/;

/** Every TypeScript file outside test/ that git knows of or would add. */
function sourceFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && !file.startsWith('test/') && !file.endsWith('.test.ts'));
}

/** The text of every comment of a TypeScript source, once each. */
function comments(text: string): string[] {
  const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, false);
  const found = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined): void => {
    for (const { pos, end } of ranges ?? []) found.set(pos, text.slice(pos, end));
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...found.values()];
}

/** The comment lines of a source that carry a date or a price. */
function datedOrPricedLines(text: string): string[] {
  return comments(text)
    .flatMap((comment) => comment.split('\n'))
    .filter((line) => DATE_OR_PRICE.test(line))
    .map((line) => line.trim());
}

describe('The rules every source file keeps', () => {
  const files = sourceFiles();
  const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

  it(`holds no source file outside test/ over ${MAX_SOURCE_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file, lines: read(file).split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_SOURCE_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it('has no comment in lib/ or lambda/ that carries a date or a price', () => {
    const found = files
      .filter((file) => NO_DATES_OR_PRICES_IN.some((folder) => file.startsWith(folder)))
      .flatMap((file) => datedOrPricedLines(read(file)).map((line) => `${file}: ${line}`));
    expect(found).toEqual([]);
  });

  it('sends no SQS or Firehose batch from lambda/: the Lambda sends one record per call', () => {
    const found = files
      .filter((file) => file.startsWith('lambda/') && BATCH_COMMANDS.test(read(file)))
      .map((file) => `${file}: ${read(file).match(BATCH_COMMANDS)?.[0]}`);
    expect(found).toEqual([]);
  });
});

describe('Function: datedOrPricedLines', () => {
  it('finds dates and prices in comments, not in code, addresses or example ranges', () => {
    const text = [
      '/**',
      ' * Measured on 2026-11-27: 1,180 calls a second.',
      ' * Required for public invocation since October 2025.',
      ' * e.g. `deliveries/2026/11/27/01/`',
      ' * Costs $0.40 per million requests, or 12 dollars a month.',
      ' * Ranges like `203.0.113.0/24` and `2001:db8::/32`; the `$default` stage; 2048 bytes.',
      ' */',
      "const when = '2026-11-27'; // a price of €45",
      'const cost = `$${amount}`;',
    ].join('\n');
    expect(datedOrPricedLines(text)).toEqual([
      '* Measured on 2026-11-27: 1,180 calls a second.',
      '* Required for public invocation since October 2025.',
      '* e.g. `deliveries/2026/11/27/01/`',
      '* Costs $0.40 per million requests, or 12 dollars a month.',
      '// a price of €45',
    ]);
  });
});
