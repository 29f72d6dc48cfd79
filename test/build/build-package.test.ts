import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { senderVector } from '../lambda/core/sender-vectors.js';
import { bookingPayload } from '../support/booking.js';

// Builds and packs the package, installs the tarball into a fresh app and synthesizes it there,
// as a team with its own CDK app would. The app lies under the test run's temporary folder, inside
// this checkout, so its scripts run with module hooks that refuse any file outside the app: Node's
// lookup would otherwise climb to the checkout's node_modules and find what a real install lacks.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  engines: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** The peers the fresh app installs beside the package: what the README's install line names. */
const REQUIRED_PEERS = ['aws-cdk-lib', 'constructs'] as const;

/** The package's entry points, as an app imports them (`exports` in package.json). */
const ENTRY_POINTS = ['.', './core', './consumer'].map((subpath) =>
  subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
);

/**
 * What the README's install line installs: the `npm install` line that names the package, without
 * the comment; `source` is how it names the package, `peers` what it names beside it.
 */
function readmeInstallLine(): { source: string[]; peers: string[] } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const line = readme
    .split('\n')
    .find((text) => text.startsWith('npm install ') && text.includes(manifest.name));
  const words = (line ?? '').replace(/#.*/, '').trim().split(/\s+/).slice(2);
  return {
    source: words.filter((word) => word.includes(manifest.name)),
    peers: words.filter((word) => !word.includes(manifest.name) && !word.startsWith('-')).sort(),
  };
}

/** An entry of package-lock.json's `packages`, with the fields read here. */
interface LockEntry {
  readonly version?: string;
  readonly dependencies?: Record<string, string>;
  readonly [field: string]: unknown;
}

/**
 * The fresh app's package.json and lock file: the tarball, and the peers exactly as this
 * checkout's lock pins them (with what they depend on, at the same paths). With a lock file
 * `npm ci` fetches no registry metadata, so it installs from the cache `npm ci` filled here.
 */
async function writeFreshApp(app: string, tarball: string): Promise<void> {
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const packages: Record<string, LockEntry> = {};
  const add = (key: string): void => {
    const found = lock.packages[key];
    if (found === undefined || key in packages) return;
    // In the app they are production dependencies, not the checkout's dev ones.
    const { dev, devOptional, peer, ...entry } = found;
    packages[key] = entry;
    for (const nested of Object.keys(lock.packages)) {
      if (nested.startsWith(`${key}/node_modules/`)) add(nested);
    }
    for (const dependency of Object.keys(entry.dependencies ?? {})) {
      // Node's lookup: the nearest node_modules folder up from the dependent that holds it.
      const levels = key.split('/node_modules/');
      const holder = levels
        .map((_, depth) => levels.slice(0, levels.length - depth).join('/node_modules/'))
        .map((at) => `${at}/node_modules/${dependency}`)
        .concat(`node_modules/${dependency}`)
        .find((candidate) => candidate in lock.packages);
      if (holder !== undefined) add(holder);
    }
  };
  for (const peer of REQUIRED_PEERS) add(`node_modules/${peer}`);
  const dependencies: Record<string, string> = {
    ...Object.fromEntries(
      REQUIRED_PEERS.map((peer) => [peer, String(lock.packages[`node_modules/${peer}`]?.version)]),
    ),
    [manifest.name]: `file:${tarball}`,
  };
  const { name, version, license, engines, peerDependencies, peerDependenciesMeta } = manifest;
  packages[`node_modules/${name}`] = {
    version,
    resolved: `file:${tarball}`,
    integrity: `sha512-${createHash('sha512')
      .update(await readFile(join(app, tarball)))
      .digest('base64')}`,
    license,
    engines,
    peerDependencies,
    peerDependenciesMeta,
  };
  const root = { name: 'fresh-app', private: true, type: 'module', dependencies };
  await writeFile(join(app, 'package.json'), JSON.stringify(root));
  await writeFile(
    join(app, 'package-lock.json'),
    JSON.stringify({
      name: root.name,
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name: root.name, dependencies }, ...packages },
    }),
  );
}

/** Runs a command; its output, or an error holding stderr when it fails. */
async function command(file: string, args: readonly string[], cwd: string): Promise<string> {
  const { stdout } = await run(file, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** Package names a built entry point imports, through its whole module graph (inlined files). */
async function importedPackages(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [join(ROOT, 'dist', `${entry}.js`)],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const paths = Object.values(result.metafile.inputs).flatMap(({ imports }) =>
    imports.filter((i) => i.external).map((i) => i.path),
  );
  const packageOf = (path: string) =>
    path
      .split('/')
      .slice(0, path.startsWith('@') ? 2 : 1)
      .join('/');
  return [...new Set(paths.filter((path) => !path.startsWith('node:')).map(packageOf))].sort();
}

/** Module hooks, written into the app: a module resolved outside the app fails to load. */
const ONLY_THE_APP_HOOKS = `const app = new URL('./', import.meta.url).href;
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (resolved.url.startsWith('file:') && !resolved.url.startsWith(app)) {
    throw new Error(\`\${specifier} is not installed in the app (found at \${resolved.url})\`);
  }
  return resolved;
}
`;

/** What `node --import` loads to register {@link ONLY_THE_APP_HOOKS}. */
const ONLY_THE_APP = `import { register } from 'node:module';
register('./only-the-app-hooks.mjs', import.meta.url);
`;

/** Runs a script of the fresh app with node, resolving modules only inside the app. */
function runInApp(app: string, script: string): Promise<string> {
  return command('node', ['--import', './only-the-app.mjs', script], app);
}

/** The plain-JavaScript CDK app a user would write. */
const APP = `import { App, Stack } from 'aws-cdk-lib';
import { WebhookReceiver } from 'service-webhook-receiver';

const app = new App();
const stack = new Stack(app, 'Hooks');
new WebhookReceiver(stack, 'Receiver', { consumer: true });
app.synth();
`;

describe('Function: buildPackage (npm run build, npm pack)', () => {
  let scratch = '';

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'webhook-receiver-package-'));
    await command('npm', ['run', 'build'], ROOT);
  }, 60_000);

  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('packs dist/, README and LICENSE only', async () => {
    // Act
    const output = await command('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT);

    // Assess
    const [pack] = JSON.parse(output) as [{ files: { path: string }[] }];
    const files = pack.files.map(({ path }) => path);
    const outside = files.filter(
      (path) => !['package.json', 'README.md', 'LICENSE'].includes(path) && !/^dist\//.test(path),
    );
    expect(outside).toEqual([]);
    expect(files.filter((path) => /test|\.local|\.ts$/.test(path.replace(/\.d\.ts$/, '')))).toEqual(
      [],
    );
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'dist/index.js',
        'dist/core.js',
        'dist/consumer.js',
        'dist/types/lib/index.d.ts',
        'dist/assets/receiver/index.mjs',
        'dist/assets/consumer/index.mjs',
      ]),
    );
  });

  it('imports no AWS SDK, CDK or other package from the signature core', async () => {
    // Act
    const packages = await importedPackages('core');

    // Assess
    expect(packages).toEqual([]);
  });

  it('imports only aws-cdk-lib and constructs from the construct', async () => {
    // Act
    const packages = await importedPackages('index');

    // Assess
    expect(packages).toEqual(['aws-cdk-lib', 'constructs']);
  });

  it('imports no package from the consumer helpers: valibot, Powertools and the SDK are inlined', async () => {
    // Act
    const packages = await importedPackages('consumer');

    // Assess: its optional peers are there for their types only.
    expect(packages).toEqual([]);
  });

  it('installs with the README install line: the package and its required peers, nothing else', () => {
    // Act
    const named = readmeInstallLine().peers;

    // Assess: the fresh app below installs exactly these; if the README names more, so must it.
    expect(named).toEqual([...REQUIRED_PEERS].sort());
    const required = Object.keys(manifest.peerDependencies).filter(
      (name) => !manifest.peerDependenciesMeta[name]?.optional,
    );
    expect(required.sort()).toEqual([...REQUIRED_PEERS].sort());
  });

  it('installs the tarball npm pack writes, never the name, which the registry does not hold', () => {
    // Act
    const { source } = readmeInstallLine();

    // Assess: the name alone would install whoever claims it on the registry.
    expect(source).toHaveLength(1);
    expect(source[0]).toMatch(
      new RegExp(`/${manifest.name}-${manifest.version.replace(/\./g, '\\.')}\\.tgz$`),
    );
  });

  it('synthesizes a plain-JavaScript app from the installed tarball, with prebundled code', async () => {
    // Prepare: the tarball, installed with the peers from the npm cache `npm ci` filled.
    const app = join(scratch, 'app');
    await mkdir(app);
    await command('npm', ['pack', '--ignore-scripts', '--pack-destination', app], ROOT);
    const tarball = (await readdir(app)).find((name) => name.endsWith('.tgz'));
    await writeFreshApp(app, String(tarball));
    await command('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], app);
    await writeFile(join(app, 'only-the-app-hooks.mjs'), ONLY_THE_APP_HOOKS);
    await writeFile(join(app, 'only-the-app.mjs'), ONLY_THE_APP);
    await writeFile(join(app, 'app.mjs'), APP);

    // Act
    await command(
      join(ROOT, 'node_modules/.bin/cdk'),
      [
        'synth',
        ...['--app', 'node --import ./only-the-app.mjs app.mjs'],
        ...['--output', 'cdk.out', '--quiet', '--no-notices'],
      ],
      app,
    );

    // Assess: neither the SDK, Powertools, valibot nor esbuild came with the package, and each
    // function's code is the prebundled asset from the package, copied into cdk.out.
    const installed = await readdir(join(app, 'node_modules'));
    expect(installed).toEqual(expect.arrayContaining(['aws-cdk-lib', 'constructs', manifest.name]));
    for (const bundled of ['@aws-sdk', '@aws-lambda-powertools', 'valibot', 'esbuild']) {
      expect(installed).not.toContain(bundled);
    }
    const template = JSON.parse(
      await readFile(join(app, 'cdk.out', 'Hooks.template.json'), 'utf8'),
    ) as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
    const functions = Object.values(template.Resources).filter(
      ({ Type, Properties }) =>
        Type === 'AWS::Lambda::Function' && Properties.Handler === 'index.handler',
    );
    const assets = functions.map(({ Properties }) => {
      const key = (Properties.Code as { S3Key: string }).S3Key;
      return join(app, 'cdk.out', `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs');
    });
    expect(assets).toHaveLength(2);
    const packaged = join(app, 'node_modules', manifest.name, 'dist', 'assets');
    const prebundled = [
      await readFile(join(packaged, 'receiver', 'index.mjs'), 'utf8'),
      await readFile(join(packaged, 'consumer', 'index.mjs'), 'utf8'),
    ];
    for (const asset of assets) {
      expect(existsSync(asset)).toBe(true);
      const code = await readFile(asset, 'utf8');
      expect(code).toMatch(/export\s*\{[^}]*\bas handler\b[^}]*\}/);
      expect(prebundled).toContain(code);
    }
  }, 120_000);

  it('imports every entry point in the fresh app, with one error base class across them', async () => {
    // Prepare: the app was installed by the test above with only what the README names.
    const script = `const specifiers = ${JSON.stringify(ENTRY_POINTS)};
const modules = [];
for (const specifier of specifiers) modules.push(await import(specifier));
const { parseBookingEvent } = modules[2];
process.stdout.write(JSON.stringify({
  exports: modules.map((module) => Object.keys(module).sort()),
  oneBase: modules.every((module) => module.WebhookReceiverError === modules[0].WebhookReceiverError),
  parsed: parseBookingEvent(${JSON.stringify(JSON.stringify(bookingPayload()))}),
}));
`;
    await writeFile(join(scratch, 'app', 'entries.mjs'), script);

    // Act
    const output = await runInApp(join(scratch, 'app'), 'entries.mjs');

    // Assess
    const { exports, oneBase, parsed } = JSON.parse(output) as {
      exports: string[][];
      oneBase: boolean;
      parsed: { ok: boolean; event?: { data: { id: string } } };
    };
    const [main, core, consumer] = exports;
    expect(main).toEqual(expect.arrayContaining(['WebhookReceiver', 'WebhookReceiverError']));
    expect(core).toEqual([
      'BodyNotJsonError',
      'WebhookReceiverError',
      'parseSignatureHeader',
      'signPayload',
      'verifySignature',
    ]);
    expect(consumer).toEqual(
      expect.arrayContaining([
        'createConsumerHandler',
        'parseBookingEvent',
        'WebhookReceiverError',
      ]),
    );
    expect(oneBase).toBe(true);
    expect(parsed).toMatchObject({ ok: true, event: { data: { id: '918273' } } });
  });

  it('verifies a Python-signed call with service-webhook-receiver/core in the fresh app', async () => {
    // Prepare: a vector a real sender signed; the app was installed by the test above.
    const vector = senderVector('py-default-separators');
    const script = `import { verifySignature } from 'service-webhook-receiver/core';
const vector = ${JSON.stringify(vector)};
const result = verifySignature({ header: vector.header, body: vector.body, keys: [vector.key], now: vector.t });
process.stdout.write(JSON.stringify(result));
`;
    await writeFile(join(scratch, 'app', 'verify.mjs'), script);

    // Act
    const output = await runInApp(join(scratch, 'app'), 'verify.mjs');

    // Assess
    expect(JSON.parse(output)).toMatchObject({ ok: true, form: 'as_sent' });
    expect(vector.expect).toEqual({ ok: true, form: 'as_sent' });
  });
});
