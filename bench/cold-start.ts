import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type BuildOptions, build } from 'esbuild';
import { LAMBDA_BUNDLING, LAMBDA_RUNTIME } from '../lib/lambda-function.js';
import { percentile } from './percentile.js';
import type { BenchSection, BenchTable } from './section.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 25;

/** The construct's options this bench knows how to hand to esbuild; any other one stops it. */
const REPRODUCED_OPTIONS = new Set([
  'format',
  'mainFields',
  'banner',
  'minify',
  'sourceMap',
  'sourcesContent',
  'bundleAwsSDK',
  'target',
]);

/**
 * The esbuild options `NodejsFunction` derives from its `bundling` props and runtime (platform
 * node, target `node<major>` of the runtime, `index.mjs` for ESM), so the bench measures the bundle
 * that is deployed. An option it cannot reproduce throws instead of measuring another bundle.
 *
 * @param bundling - the construct's bundling options (`LAMBDA_BUNDLING`)
 * @param runtime - the functions' runtime
 * @param outdir - directory the bundle is written to
 * @throws {Error} for an option other than those listed in `REPRODUCED_OPTIONS`, or an SDK left
 *   out of the bundle (it cannot be loaded outside Lambda)
 */
export function esbuildOptionsFor(
  bundling: BundlingOptions,
  runtime: Runtime,
  outdir: string,
): BuildOptions {
  const unknown = Object.keys(bundling).filter((name) => !REPRODUCED_OPTIONS.has(name));
  if (unknown.length > 0) {
    throw new Error(`bench cannot reproduce the bundling option(s) ${unknown.join(', ')}`);
  }
  if (bundling.bundleAwsSDK !== true) {
    throw new Error('bench loads bundles outside Lambda: bundleAwsSDK must be true');
  }
  const major = /^nodejs(\d+)/.exec(runtime.name)?.[1];
  if (major === undefined) throw new Error(`${runtime.name} is not a Node.js runtime`);
  const esm = bundling.format === OutputFormat.ESM;
  return {
    bundle: true,
    platform: 'node',
    target: bundling.target ?? `node${major}`,
    format: esm ? 'esm' : 'cjs',
    outfile: join(outdir, esm ? 'index.mjs' : 'index.js'),
    minify: bundling.minify ?? false,
    sourcemap: bundling.sourceMap ?? false,
    sourcesContent: bundling.sourcesContent ?? true,
    ...(bundling.mainFields === undefined ? {} : { mainFields: bundling.mainFields }),
    ...(bundling.banner === undefined ? {} : { banner: { js: bundling.banner } }),
    absWorkingDir: ROOT,
    logLevel: 'warning',
  };
}

/** The floor: a module that only loads the two SDK clients the receiver uses and builds them. */
const FLOOR_SOURCE = `import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
export const clients = [new SQSClient({}), new SecretsManagerClient({})];
`;

interface Bundle {
  /** How the table names it. */
  readonly label: string;
  readonly file: string;
  readonly bytes: number;
  readonly mapBytes: number;
}

export async function bundle(
  label: string,
  entry: Pick<BuildOptions, 'entryPoints' | 'stdin'>,
  outdir: string,
): Promise<Bundle> {
  const options = esbuildOptionsFor(LAMBDA_BUNDLING, LAMBDA_RUNTIME, outdir);
  await build({ ...options, ...entry });
  const file = options.outfile ?? '';
  const [code, map] = await Promise.all([readFile(file), readFile(`${file}.map`).catch(() => '')]);
  return { label, file, bytes: code.byteLength, mapBytes: map.length };
}

/**
 * Environment of a fresh process that loads a bundle: what the receiver needs at cold start in
 * AWS (SECRET_ID, so both SDK clients are built as in production) and nothing inherited.
 */
export const LOAD_ENV = {
  SECRET_ID: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:webhook-signing-key-AbCdEf',
  QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhook-events',
  AWS_REGION: 'us-east-1',
  // The SDK warns once on Node < 22; Lambda runs Node 24, where the warning does not exist.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** Time to `import()` a bundle in a new `node` process: parse, link, evaluate. */
interface LoadTime {
  readonly wallMs: number;
  /** CPU time of the whole process meanwhile: unlike wall time, not stretched by other processes. */
  readonly cpuMs: number;
}

async function loadTime(file: string, nodeOptions: readonly string[]): Promise<LoadTime> {
  const url = JSON.stringify(pathToFileURL(file).href);
  const loader = [
    'const cpu = process.cpuUsage(); const start = performance.now();',
    `await import(${url});`,
    'const wallMs = performance.now() - start; const { user, system } = process.cpuUsage(cpu);',
    'process.stdout.write(JSON.stringify({ wallMs, cpuMs: (user + system) / 1000 }));',
  ].join(' ');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeOptions, '--input-type=module', '-e', loader],
    { env: LOAD_ENV, timeout: 30_000 },
  );
  const time = JSON.parse(stdout) as LoadTime;
  if (!(Number.isFinite(time.wallMs) && Number.isFinite(time.cpuMs))) {
    throw new Error(`bench: the loader printed ${JSON.stringify(stdout)}`);
  }
  return time;
}

/** Fisher-Yates: a new random order of `items`. */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

/** The `cdk synth` asset in cdk.out with the same bytes, if there is one. */
async function identicalCdkAsset(file: string): Promise<string | undefined> {
  const code = await readFile(file);
  const assets = await readdir(join(ROOT, 'cdk.out')).catch((): string[] => []);
  for (const asset of assets.filter((name) => name.startsWith('asset.'))) {
    const candidate = await readFile(join(ROOT, 'cdk.out', asset, 'index.mjs')).catch(() => null);
    if (candidate?.equals(code)) return `cdk.out/${asset}/index.mjs`;
  }
  return undefined;
}

/** Deployed functions run with `NODE_OPTIONS=--enable-source-maps` (set by the construct). */
const VARIANTS = [
  { name: 'source maps', nodeOptions: ['--enable-source-maps'] },
  { name: 'no source maps', nodeOptions: [] },
] as const;

/** What is reported per variant: wall time (what a caller waits) and CPU time (robust to noise). */
const METRICS = [
  { key: 'wallMs', title: 'load ms median' },
  { key: 'cpuMs', title: 'CPU ms median' },
] as const;

const kib = (bytes: number): string => (bytes / 1024).toFixed(1);
const ms = (value: number): string => value.toFixed(1);

/** What {@link measureColdStart} found; the capacity section reuses it. */
export interface ColdStartMeasurement {
  /** The receiver's bundle, then the floor's. */
  readonly bundles: readonly Bundle[];
  /** Median of a metric over the processes that loaded bundle `b` (index) with variant `v`. */
  readonly median: (b: number, v: number, metric: keyof LoadTime) => number;
  /** The `cdk synth` asset byte-identical to the receiver bundle, if there is one. */
  readonly asset: string | undefined;
  /** The receiver's module load as deployed (source maps on): median CPU ms on this machine. */
  readonly receiverLoadCpuMs: number;
}

let coldStart: Promise<ColdStartMeasurement> | undefined;

/**
 * Builds the receiver and floor bundles and loads each in fresh processes, once per `npm run
 * bench` (the capacity section reuses the figures).
 */
export function measureColdStart(): Promise<ColdStartMeasurement> {
  coldStart ??= runColdStartMeasurement();
  return coldStart;
}

async function runColdStartMeasurement(): Promise<ColdStartMeasurement> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-cold-start-'));
  try {
    const receiver = await bundle(
      'receiver (lambda/receiver/index.ts)',
      { entryPoints: [join(ROOT, 'lambda/receiver/index.ts')] },
      join(dir, 'receiver'),
    );
    const floor = await bundle(
      'floor (2 SDK clients built)',
      {
        stdin: { contents: FLOOR_SOURCE, resolveDir: ROOT, sourcefile: 'floor.ts', loader: 'ts' },
      },
      join(dir, 'floor'),
    );
    const bundles = [receiver, floor];
    const cells = bundles.flatMap((target, b) =>
      VARIANTS.map((variant, v) => ({ target, variant, b, v, times: [] as LoadTime[] })),
    );
    // One process at a time, every cell once per round in a new random order, so a busy moment
    // on the machine or a periodic neighbour hits every bundle alike.
    for (let run = 0; run < RUNS; run++) {
      for (const cell of shuffled(cells)) {
        cell.times.push(await loadTime(cell.target.file, cell.variant.nodeOptions));
      }
    }
    const median = (b: number, v: number, metric: keyof LoadTime): number =>
      percentile(
        cells.find((cell) => cell.b === b && cell.v === v)?.times.map((t) => t[metric]) ?? [],
        0.5,
      );
    return {
      bundles,
      median,
      asset: await identicalCdkAsset(receiver.file),
      receiverLoadCpuMs: median(0, 0, 'cpuMs'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bundle size and module-load time of the receiver against the bare-SDK floor. */
export const coldStartSection: BenchSection = {
  name: 'cold-start',
  async run(): Promise<BenchTable> {
    const { bundles, median, asset } = await measureColdStart();
    const columns = VARIANTS.flatMap((variant, v) =>
      METRICS.map((metric) => ({ v, metric, title: `${metric.title} (${variant.name})` })),
    );
    return {
      title: 'Cold start: receiver bundle vs a bundle of only the SQS and Secrets Manager clients',
      columns: ['bundle', 'minified KiB', 'source map KiB', ...columns.map(({ title }) => title)],
      rows: [
        ...bundles.map((b, index) => [
          b.label,
          kib(b.bytes),
          kib(b.mapBytes),
          ...columns.map(({ v, metric }) => ms(median(index, v, metric.key))),
        ]),
        [
          'ratio receiver / floor',
          '',
          '',
          ...columns.map(({ v, metric }) =>
            (median(0, v, metric.key) / median(1, v, metric.key)).toFixed(2),
          ),
        ],
      ],
      notes: [
        'Target: ratio <= 1.3 for the load time with source maps, as deployed. On this shared 2-core machine the wall-time ratio moved by up to 0.3 between runs; the CPU-time ratio beside it is the steadier reading.',
        `Both built by esbuild with the construct's own options (LAMBDA_BUNDLING, ${LAMBDA_RUNTIME.name}: ESM, minified, SDK bundled, banner, external source map)${asset ? `; the receiver bundle is byte-identical to the \`cdk synth\` asset ${asset}` : ''}.`,
        `Load = \`await import(bundle)\` timed inside a fresh \`node\` process with SECRET_ID, QUEUE_URL and AWS_REGION set; median of ${RUNS} processes per cell, the cells in a new random order each round.`,
        'Deployed functions run with NODE_OPTIONS=--enable-source-maps; the columns without show what reading the source map costs at load.',
        'Lambda runs Node 24 on arm64 with CPU in proportion to memory, so absolute times differ there: the ratio is the figure that carries over.',
      ],
    };
  },
};
