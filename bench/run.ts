import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { capacitySection } from './capacity.js';
import { coldStartSection } from './cold-start.js';
import { costSection } from './cost.js';
import { footprintSection } from './footprint.js';
import { handlerSection, logsSection } from './handler.js';
import { inspectorSection } from './inspector.js';
import type { BenchSection, BenchTable } from './section.js';
import { throughputSection } from './throughput.js';
import { verifySection } from './verify.js';

// Sections run in this order; `npm run bench -- verify` runs only the named ones.
const SECTIONS: readonly BenchSection[] = [
  // First, before the other sections load the machine: its figures are absolute requests a
  // second, where every other section sets its figures against a floor measured beside them.
  throughputSection,
  verifySection,
  handlerSection,
  logsSection,
  coldStartSection,
  footprintSection,
  inspectorSection,
  // After the handler section: it prices the latency measured there.
  costSection,
  // After the handler and cold-start sections: it reuses their measurements.
  capacitySection,
];
const RESULTS_FILE = new URL('./results.md', import.meta.url);
const MACHINE = `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}`;

// Each section's block in results.md starts with this line, so running some sections
// (`npm run bench -- verify`) replaces their blocks and keeps the others' last results.
function sectionMarker(name: string): string {
  return `<!-- bench section: ${name} -->`;
}

async function previousBlocks(): Promise<Map<string, string>> {
  const text = await readFile(RESULTS_FILE, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  const blocks = new Map<string, string>();
  for (const [, name = '', body = ''] of text.matchAll(
    /<!-- bench section: (\S+) -->\n([\s\S]*?)(?=<!-- bench section: |$)/g,
  )) {
    blocks.set(name, `${sectionMarker(name)}\n${body.trimEnd()}`);
  }
  return blocks;
}

function toMarkdown(table: BenchTable): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const measured = `Measured on ${new Date().toISOString().slice(0, 10)}, ${MACHINE}.`;
  return [
    `## ${table.title}`,
    '',
    measured,
    '',
    line(table.columns),
    line(table.columns.map(() => '---')),
    ...table.rows.map(line),
    ...(table.notes.length > 0 ? ['', ...table.notes.map((note) => `- ${note}`)] : []),
  ].join('\n');
}

function toConsole(table: BenchTable): string {
  const widths = table.columns.map((column, index) =>
    Math.max(column.length, ...table.rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join('  ');
  return [table.title, line(table.columns), ...table.rows.map(line), ''].join('\n');
}

const USAGE = `Usage: npm run bench [-- SECTION ...]

Measures the receiver and writes bench/results.md; with section names, runs only those and keeps
the other sections' last results. Sections: ${SECTIONS.map((section) => section.name).join(', ')}.

  --help   show this help`;

const wanted = process.argv.slice(2);
if (wanted.includes('--help') || wanted.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const unknownFlag = wanted.find((argument) => argument.startsWith('-'));
if (unknownFlag !== undefined) {
  process.stderr.write(`bench: unknown option '${unknownFlag}'\n\n${USAGE}\n`);
  process.exit(2);
}
const selected = SECTIONS.filter((section) => wanted.length === 0 || wanted.includes(section.name));
if (selected.length === 0) {
  process.stderr.write(
    `bench: no section named ${wanted.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}\n`,
  );
  process.exit(2);
}
const blocks = await previousBlocks();
for (const section of selected) {
  const result = await section.run();
  const tables: readonly BenchTable[] = Array.isArray(result) ? result : [result];
  for (const table of tables) {
    process.stdout.write(`${toConsole(table)}\n`);
  }
  blocks.set(
    section.name,
    `${sectionMarker(section.name)}\n${tables.map(toMarkdown).join('\n\n')}`,
  );
}
const header = `# Benchmark results\n\nWritten by \`npm run bench\`; each section says when and where it was measured.`;
const kept = SECTIONS.flatMap((section) => blocks.get(section.name) ?? []);
await writeFile(RESULTS_FILE, `${[header, ...kept].join('\n\n')}\n`);
process.stdout.write(
  `Written to bench/results.md (${selected.map((s) => s.name).join(', ')}; ${MACHINE})\n`,
);
