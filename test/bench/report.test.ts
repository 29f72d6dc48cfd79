import { describe, expect, it } from 'vitest';
import {
  drawnFiles,
  parseBenchArgs,
  resultBlocks,
  resultsText,
  sectionBlock,
} from '../../bench/report.js';
import type { BenchTable } from '../../bench/section.js';

const SECTIONS = ['verify', 'cost', 'capacity'];
const MEASURED = { date: '2026-12-07', machine: 'Node v20, test CPU x2' };

const table = (title: string, files?: BenchTable['files']): BenchTable => ({
  title,
  columns: ['what', 'figure'],
  rows: [['a', '1']],
  notes: [`${title} note`],
  ...(files === undefined ? {} : { files }),
});

describe('Function: parseBenchArgs', () => {
  it('runs every section and writes nothing when given nothing', () => {
    // Act
    const args = parseBenchArgs([], SECTIONS);

    // Assess
    expect(args).toEqual({ kind: 'run', sections: SECTIONS, write: false });
  });

  it('writes only with --write, wherever it stands among the sections named', () => {
    // Act
    const before = parseBenchArgs(['--write', 'capacity', 'verify'], SECTIONS);
    const after = parseBenchArgs(['cost', '--write'], SECTIONS);
    const without = parseBenchArgs(['cost'], SECTIONS);

    // Assess: sections run in their own order, not the command line's.
    expect(before).toEqual({ kind: 'run', sections: ['verify', 'capacity'], write: true });
    expect(after).toEqual({ kind: 'run', sections: ['cost'], write: true });
    expect(without).toEqual({ kind: 'run', sections: ['cost'], write: false });
  });

  it('refuses an unknown option with the usage, and an unknown section naming the known ones', () => {
    // Act
    const option = parseBenchArgs(['cost', '--writ'], SECTIONS);
    const section = parseBenchArgs(['cost', 'costs'], SECTIONS);

    // Assess
    expect(option).toEqual({
      kind: 'usage-error',
      message: "unknown option '--writ'",
      withUsage: true,
    });
    expect(section).toEqual({
      kind: 'usage-error',
      message: 'no section named costs; known: verify, cost, capacity',
      withUsage: false,
    });
  });
});

describe('Function: resultsText', () => {
  it("replaces the blocks of the sections run and keeps the others' last results, in the sections' order", () => {
    // Prepare
    const previous = resultsText(
      new Map([
        ['capacity', sectionBlock('capacity', [table('Old capacity')], MEASURED)],
        ['verify', sectionBlock('verify', [table('Old verify')], MEASURED)],
      ]),
      SECTIONS,
    );
    const blocks = resultBlocks(previous);

    // Act
    blocks.set('verify', sectionBlock('verify', [table('New verify')], MEASURED));
    blocks.set('cost', sectionBlock('cost', [table('Cost'), table('Fixed')], MEASURED));
    const text = resultsText(blocks, SECTIONS);

    // Assess
    expect(text.match(/^## .*$/gm)).toEqual([
      '## New verify',
      '## Cost',
      '## Fixed',
      '## Old capacity',
    ]);
    expect(text).toContain('Written by `npm run bench -- --write`');
    expect(text).toContain(
      '## Cost\n\nMeasured on 2026-12-07, Node v20, test CPU x2.\n\n| what | figure |\n| --- | --- |\n| a | 1 |\n\n- Cost note',
    );
    expect(resultBlocks(text).get('capacity')).toBe(blocks.get('capacity'));
  });
});

describe('Function: drawnFiles', () => {
  it("lists each file the run's tables draw once, the last drawing kept", () => {
    // Act
    const files = drawnFiles([
      table('Cost', [{ path: 'docs/cost-chart.svg', text: '<svg>1</svg>' }]),
      table('Verify'),
      table('Cost again', [{ path: 'docs/cost-chart.svg', text: '<svg>2</svg>' }]),
    ]);

    // Assess
    expect(files).toEqual([{ path: 'docs/cost-chart.svg', text: '<svg>2</svg>' }]);
  });
});
