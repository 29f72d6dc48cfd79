import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { capacitySection } from './capacity.js';
import { coldStartSection } from './cold-start.js';
import { costSection } from './cost.js';
import { footprintSection } from './footprint.js';
import { handlerSection } from './handler-cpu.js';
import { inspectorSection } from './inspector.js';
import { logsSection } from './logs.js';
import {
  consoleText,
  drawnFiles,
  parseBenchArgs,
  resultBlocks,
  resultsText,
  sectionBlock,
  WRITE_FLAG,
} from './report.js';
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
const ROOT = new URL('../', import.meta.url);
const RESULTS_FILE = 'bench/results.md';
const MACHINE = `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}`;
const NAMES = SECTIONS.map((section) => section.name);

const USAGE = `Usage: npm run bench [-- [SECTION ...] [${WRITE_FLAG}]]

Measures the receiver and prints the results; with section names, runs only those. Sections:
${NAMES.join(', ')}.

  ${WRITE_FLAG}  also write them: the sections run replace their blocks in ${RESULTS_FILE} (the
           others keep their last results), and the files they draw (the cost section's
           docs/cost-chart.svg) are rewritten
  --help   show this help`;

const args = parseBenchArgs(process.argv.slice(2), NAMES);
if (args.kind === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (args.kind === 'usage-error') {
  process.stderr.write(`bench: ${args.message}\n${args.withUsage ? `\n${USAGE}\n` : ''}`);
  process.exit(2);
}
const measured = { date: new Date().toISOString().slice(0, 10), machine: MACHINE };
const blocks = resultBlocks(await readResults());
const drawn: BenchTable[] = [];
for (const section of SECTIONS.filter(({ name }) => args.sections.includes(name))) {
  const result = await section.run();
  const tables: readonly BenchTable[] = Array.isArray(result) ? result : [result];
  for (const table of tables) process.stdout.write(`${consoleText(table)}\n`);
  blocks.set(section.name, sectionBlock(section.name, tables, measured));
  drawn.push(...tables);
}
const files = [{ path: RESULTS_FILE, text: resultsText(blocks, NAMES) }, ...drawnFiles(drawn)];
const paths = files.map(({ path }) => path).join(', ');
if (args.write) {
  for (const { path, text } of files) await writeFile(new URL(path, ROOT), text);
  process.stdout.write(`Written to ${paths} (${args.sections.join(', ')}; ${MACHINE})\n`);
} else {
  process.stdout.write(`Not written: ${WRITE_FLAG} would update ${paths}\n`);
}

async function readResults(): Promise<string> {
  return readFile(new URL(RESULTS_FILE, ROOT), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
}
