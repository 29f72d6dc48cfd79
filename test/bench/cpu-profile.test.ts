import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CpuProfile,
  cpuBreakdown,
  dependencyClosure,
  packagesUrl,
  projectUrl,
} from '../../bench/cpu-profile.js';

const frame = (id: number, url: string, functionName = 'f') => ({
  id,
  callFrame: { functionName, url },
});

/** A profile of samples 1 ms apart from t = 1,000,000 µs, on the nodes given in order. */
function profileOf(samples: number[]): CpuProfile {
  return {
    nodes: [
      frame(1, '', '(idle)'),
      frame(2, 'file:///app/node_modules/@aws-sdk/core/dist-cjs/index.js'),
      frame(3, 'file:///app/lambda/receiver/handler.ts'),
      frame(4, '', '(garbage collector)'),
      frame(5, 'node:_http_server'),
    ],
    startTime: 1_000_000,
    samples,
    timeDeltas: samples.map(() => 1000),
  };
}

const PARTS = [
  { name: 'sdk', url: /\/node_modules\/@aws-sdk\// },
  { name: 'receiver', url: /\/lambda\// },
  { name: 'gc', functionName: /^\(garbage collector\)$/ },
];

describe('Function: cpuBreakdown', () => {
  it('charges each busy sample to the first part its frame matches, the rest to other', () => {
    // Prepare
    const profile = profileOf([2, 2, 3, 4, 5, 1, 1]);

    // Act
    const breakdown = cpuBreakdown(profile, { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER }, PARTS);

    // Assess
    expect(breakdown).toEqual({
      busyMs: 5,
      idleMs: 2,
      parts: [
        { name: 'sdk', ms: 2 },
        { name: 'receiver', ms: 1 },
        { name: 'gc', ms: 1 },
        { name: 'other', ms: 1 },
      ],
    });
  });

  it('counts only the samples taken within the window, ends included', () => {
    // Prepare: samples at 1,001,000 ... 1,006,000 µs.
    const profile = profileOf([2, 3, 3, 4, 1, 2]);

    // Act
    const breakdown = cpuBreakdown(profile, { fromUs: 1_002_000, toUs: 1_005_000 }, PARTS);

    // Assess
    expect(breakdown.busyMs).toBe(3);
    expect(breakdown.idleMs).toBe(1);
    expect(breakdown.parts.find((part) => part.name === 'receiver')?.ms).toBe(2);
    expect(breakdown.parts.find((part) => part.name === 'sdk')?.ms).toBe(0);
  });
});

describe('Function: dependencyClosure', () => {
  const scratch = fileURLToPath(new URL('../../.local/', import.meta.url));
  let dir = '';

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function install(path: string, name: string, dependencies: Record<string, string>) {
    await mkdir(path, { recursive: true });
    await writeFile(join(path, 'package.json'), JSON.stringify({ name, dependencies }));
  }

  it('follows dependencies, hoisted or nested, and ignores packages not installed', async () => {
    // The project folder is given with a trailing separator, as a URL's path gives it.
    // Prepare
    await mkdir(scratch, { recursive: true });
    dir = await mkdtemp(join(scratch, 'closure-'));
    const modules = join(dir, 'node_modules');
    await install(join(modules, 'server'), 'server', { koa: '1', '@scope/log': '1', gone: '1' });
    await install(join(modules, 'koa'), 'koa', { debug: '1' });
    // debug is koa's own copy; the ms it needs is two folders up, beside server's own.
    await install(join(modules, 'koa', 'node_modules', 'debug'), 'debug', { ms: '1' });
    await install(join(modules, 'server', 'node_modules', 'ms'), 'ms', {});
    await install(join(modules, 'ms'), 'ms', {});
    await install(join(modules, '@scope', 'log'), '@scope/log', {});
    await install(join(modules, 'unrelated'), 'unrelated', {});

    // Act
    const closure = await dependencyClosure(`${dir}/`, ['server']);

    // Assess
    expect([...closure].sort()).toEqual(['@scope/log', 'debug', 'koa', 'ms', 'server']);
  });
});

describe('Function: packagesUrl', () => {
  it('matches files of the packages named, scoped ones included, and no others', () => {
    // Act
    const url = packagesUrl(['koa', '@aws-sdk/core']);

    // Assess
    expect(url.test('file:///app/node_modules/koa/lib/application.js')).toBe(true);
    expect(url.test('file:///app/node_modules/@aws-sdk/core/dist-cjs/index.js')).toBe(true);
    expect(url.test('file:///app/node_modules/koa-compose/index.js')).toBe(false);
    expect(url.test('file:///app/node_modules/@aws-sdk/client-sqs/index.js')).toBe(false);
    expect(url.test('file:///app/lambda/koa/index.ts')).toBe(false);
  });

  it('charges a copy nested in a named package to its own name, not to the package around it', () => {
    // Act
    const url = packagesUrl(['koa']);

    // Assess
    expect(url.test('file:///app/node_modules/koa/node_modules/debug/src/index.js')).toBe(false);
    expect(url.test('file:///app/node_modules/other/node_modules/koa/lib/context.js')).toBe(true);
  });
});

describe('Function: projectUrl', () => {
  it("matches the project's own files below the path, wherever the checkout lies, and no others", () => {
    // Act
    const url = projectUrl('/srv/lambda/app/', 'lambda/');

    // Assess
    expect(url.test('file:///srv/lambda/app/lambda/receiver/handler.ts')).toBe(true);
    expect(url.test('file:///srv/lambda/app/node_modules/x/lambda/index.js')).toBe(false);
    expect(url.test('file:///srv/lambda/app/local/start.ts')).toBe(false);
    expect(url.test('file:///srv/lambda/other/lambda/handler.ts')).toBe(false);
  });
});
