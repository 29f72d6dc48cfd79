import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  forbiddenImports,
  importCycles,
  importEdges,
  layerFolderOf,
  packageImports,
  upwardImports,
} from '../build/import-graph.js';

const ROOT = new URL('..', import.meta.url).pathname;

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

  it('has no forbidden import: lib/ takes from lambda/ only core and contract, no CDK below lib/', () => {
    const found = forbiddenImports([...edges, ...packageImports(ROOT, files)]);
    expect(found.map(({ from, to, why }) => `${from} -> ${to} (${why})`)).toEqual([]);
  });

  it('type-checks every folder that holds a source file (tsconfig.json include)', () => {
    const { include } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as {
      include: string[];
    };
    const folders = new Set(
      files.filter((file) => file.includes('/')).map((file) => file.split('/')[0]),
    );
    expect([...folders].filter((folder) => !include.includes(folder as string))).toEqual([]);
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

  it('reports the CDK imported by a function and a function imported by lib/, not the contract', () => {
    const edges = [
      { from: 'lambda/receiver/handler.ts', to: 'aws-cdk-lib/aws-sqs' },
      { from: 'devkit/tool-io.ts', to: 'constructs' },
      { from: 'lib/alarms.ts', to: 'lambda/receiver/config.ts' },
      { from: 'lib/alarms.ts', to: 'lambda/contract/metric-names.ts' },
      { from: 'lib/alarms.ts', to: 'aws-cdk-lib' },
      { from: 'lambda/consumer/config.ts', to: 'lambda/contract/environment.ts' },
    ];
    expect(forbiddenImports(edges).map(({ from, to }) => `${from} -> ${to}`)).toEqual([
      'lambda/receiver/handler.ts -> aws-cdk-lib/aws-sqs',
      'devkit/tool-io.ts -> constructs',
      'lib/alarms.ts -> lambda/receiver/config.ts',
    ]);
  });

  it('reports the consumer importing the receiver as beside it, not below', () => {
    const edges = [{ from: 'lambda/consumer/config.ts', to: 'lambda/receiver/config.ts' }];
    expect(upwardImports(edges)).toEqual(edges);
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
