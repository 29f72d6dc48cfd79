/**
 * `npm run build`: writes the package's `dist/`:
 * - `index.js`, `core.js`, `consumer.js`: the three entry points (see `exports` in package.json),
 *   bundled by esbuild with source maps, and `chunks/`, the modules they share (one copy of
 *   each, so `instanceof WebhookReceiverError` holds whichever entry point threw). What the
 *   package requires as a peer dependency (`aws-cdk-lib`, `constructs`: the README's install
 *   line) stays an import; anything else the code uses, optional peers included, is inlined, so
 *   each entry point runs with nothing installed but the package and its required peers;
 * - `types/`: their declarations, by tsc (`tsconfig.build.json`);
 * - `assets/receiver/` and `assets/consumer/`: the Lambda code, bundled with the options the
 *   construct uses in this repository ({@link LAMBDA_BUNDLING}), which the installed construct
 *   deploys as they are (see `lib/lambda-function.ts`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { type BuildOptions, build } from 'esbuild';
import { LAMBDA_BUNDLING, LAMBDA_RUNTIME, prebundledAssetDir } from '../lib/lambda-function.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');

/** The package's entry points: `exports` subpath file name -> source. */
const PACKAGE_ENTRIES = {
  index: 'lib/index.ts',
  core: 'lambda/core/index.ts',
  consumer: 'lambda/consumer/library.ts',
} as const;

/** The Lambda entry points the construct deploys. */
const LAMBDA_ENTRIES = ['lambda/receiver/index.ts', 'lambda/consumer/index.ts'] as const;

/**
 * The required peer dependencies of package.json: the only packages the entry points import.
 * The optional ones (Powertools, valibot, the Lambda types) are there for the consumer's types;
 * their code is inlined.
 */
function requiredPeerDependencies(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
  return Object.keys(manifest.peerDependencies ?? {}).filter(
    (name) => manifest.peerDependenciesMeta?.[name]?.optional !== true,
  );
}

/** esbuild options equal to what NodejsFunction runs for `bundling` and `runtime`. */
function lambdaBuildOptions(bundling: nodejs.BundlingOptions): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    // NodejsFunction's target: `nodejs24.x` -> `node24`.
    target: LAMBDA_RUNTIME.name.replace(/^nodejs(\d+)\.x$/, 'node$1'),
    format: bundling.format === 'esm' ? 'esm' : 'cjs',
    ...(bundling.mainFields === undefined ? {} : { mainFields: bundling.mainFields }),
    ...(bundling.banner === undefined ? {} : { banner: { js: bundling.banner } }),
    minify: bundling.minify ?? false,
    sourcemap: bundling.sourceMap ?? false,
    sourcesContent: bundling.sourcesContent ?? true,
    // bundleAwsSDK: nothing is external, the SDK included.
    external: bundling.bundleAwsSDK ? [] : ['@aws-sdk/*'],
    logLevel: 'warning',
  };
}

async function buildPackage(): Promise<void> {
  rmSync(DIST, { recursive: true, force: true });
  execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  const peers = requiredPeerDependencies();
  await build({
    entryPoints: PACKAGE_ENTRIES,
    outdir: DIST,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The packages' ES module builds: inlined CommonJS would call require(), which ES modules lack.
    mainFields: ['module', 'main'],
    sourcemap: true,
    // Stack traces need the mappings, not the sources (as for the Lambda code): keeps dist small.
    sourcesContent: false,
    external: peers.flatMap((name) => [name, `${name}/*`]),
    logLevel: 'warning',
  });
  for (const entry of LAMBDA_ENTRIES) {
    const outdir = prebundledAssetDir(entry, new URL('assets/', `file://${DIST}/`));
    const outfile = join(outdir, 'index.mjs');
    await build({ ...lambdaBuildOptions(LAMBDA_BUNDLING), entryPoints: [entry], outfile });
    // stderr: `npm pack --json` runs this as prepack and its stdout must stay JSON.
    process.stderr.write(`${outfile.slice(ROOT.length)}: ${statSync(outfile).size} bytes\n`);
  }
}

await buildPackage();
