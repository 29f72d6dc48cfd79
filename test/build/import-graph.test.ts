import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  importCycles,
  importEdges,
  layerFolderOf,
  upwardImports,
} from '../../build/import-graph.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/** Every TypeScript file of the checkout that git knows of or would add, tests included. */
function sourceFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && !file.endsWith('.d.ts'));
}

describe('The import graph of the repository', () => {
  const files = sourceFiles();
  const edges = importEdges(ROOT, files);

  it('places every source file in a folder outside test/ in a layer', () => {
    const unplaced = files.filter(
      (file) => file.includes('/') && !file.startsWith('test/') && !layerFolderOf(file),
    );
    expect(unplaced).toEqual([]);
  });

  it('has no import from a folder to one above it or beside it', () => {
    expect(upwardImports(edges).map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('has no import cycle, tests included', () => {
    expect(importCycles(edges)).toEqual([]);
  });
});

describe('Function: upwardImports and importCycles', () => {
  it('reports an import of the runtime into the tools as fine and the reverse as upward', () => {
    const edges = [
      { from: 'cli/send.ts', to: 'lambda/core/sign.ts' },
      { from: 'lambda/core/sign.ts', to: 'devkit/tool-io.ts' },
      { from: 'local/start.ts', to: 'cli/send.ts' },
    ];
    expect(upwardImports(edges)).toEqual([edges[1], edges[2]]);
  });

  it('finds a cycle through three files and a file importing itself, not a chain', () => {
    const edges = [
      { from: 'a.ts', to: 'b.ts' },
      { from: 'b.ts', to: 'c.ts' },
      { from: 'c.ts', to: 'a.ts' },
      { from: 'c.ts', to: 'd.ts' },
      { from: 'e.ts', to: 'e.ts' },
    ];
    expect(importCycles(edges)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });
});
