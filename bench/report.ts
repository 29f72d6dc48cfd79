import type { BenchFile, BenchTable } from './section.js';

/**
 * What `npm run bench` prints and, under `--write`, writes: the command line it takes, each
 * table as text and as Markdown, and the results file merged from the sections run and the
 * blocks the others left.
 * @module
 */

/** The flag that lets a run write `bench/results.md` and the files its sections draw. */
export const WRITE_FLAG = '--write';

/** A command line, read. */
export type BenchArgs =
  | { readonly kind: 'help' }
  | { readonly kind: 'usage-error'; readonly message: string; readonly withUsage: boolean }
  | { readonly kind: 'run'; readonly sections: readonly string[]; readonly write: boolean };

/**
 * Reads the command line: section names (none for every section), `--write`, `--help`.
 *
 * @param argv - the arguments after the script's name
 * @param known - the names of the sections, in their order
 */
export function parseBenchArgs(argv: readonly string[], known: readonly string[]): BenchArgs {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  const write = argv.includes(WRITE_FLAG);
  const named = argv.filter((argument) => argument !== WRITE_FLAG);
  const unknownFlag = named.find((argument) => argument.startsWith('-'));
  if (unknownFlag !== undefined) {
    return { kind: 'usage-error', message: `unknown option '${unknownFlag}'`, withUsage: true };
  }
  const unknown = named.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    return {
      kind: 'usage-error',
      message: `no section named ${unknown.join(', ')}; known: ${known.join(', ')}`,
      withUsage: false,
    };
  }
  const sections = known.filter((name) => named.length === 0 || named.includes(name));
  return { kind: 'run', sections, write };
}

/** The line that starts a section's block in the results file. */
function sectionMarker(name: string): string {
  return `<!-- bench section: ${name} -->`;
}

/**
 * The blocks of a results file by section name, so that a run of some sections replaces their
 * blocks and keeps the others'.
 */
export function resultBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const [, name = '', body = ''] of text.matchAll(
    /<!-- bench section: (\S+) -->\n([\s\S]*?)(?=<!-- bench section: |$)/g,
  )) {
    blocks.set(name, `${sectionMarker(name)}\n${body.trimEnd()}`);
  }
  return blocks;
}

/**
 * A section's block: its marker, then each table as Markdown headed by when and where it was
 * measured.
 */
export function sectionBlock(
  name: string,
  tables: readonly BenchTable[],
  measured: { readonly date: string; readonly machine: string },
): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const markdown = (table: BenchTable): string =>
    [
      `## ${table.title}`,
      '',
      `Measured on ${measured.date}, ${measured.machine}.`,
      '',
      line(table.columns),
      line(table.columns.map(() => '---')),
      ...table.rows.map(line),
      ...(table.notes.length > 0 ? ['', ...table.notes.map((note) => `- ${note}`)] : []),
    ].join('\n');
  return `${sectionMarker(name)}\n${tables.map(markdown).join('\n\n')}`;
}

/** The results file: its header, then the blocks in the sections' order. */
export function resultsText(blocks: ReadonlyMap<string, string>, order: readonly string[]): string {
  const header = `# Benchmark results\n\nWritten by \`npm run bench -- ${WRITE_FLAG}\`; each section says when and where it was measured.`;
  const kept = order.flatMap((name) => blocks.get(name) ?? []);
  return `${[header, ...kept].join('\n\n')}\n`;
}

/** A table as aligned columns for the terminal. */
export function consoleText(table: BenchTable): string {
  const widths = table.columns.map((column, index) =>
    Math.max(column.length, ...table.rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join('  ');
  return [table.title, line(table.columns), ...table.rows.map(line), ''].join('\n');
}

/** The files a run's tables draw besides the results file, each once. */
export function drawnFiles(tables: readonly BenchTable[]): BenchFile[] {
  const byPath = new Map<string, BenchFile>();
  for (const file of tables.flatMap((table) => table.files ?? [])) byPath.set(file.path, file);
  return [...byPath.values()];
}
