/**
 * The package's API report: one `*.api.md` file per entry point of package.json's `exports`,
 * written by API Extractor from the declarations tsc emits (`tsconfig.build.json`) into
 * `docs/api/`, where any change to the public surface shows up in review. `npm run api-report`
 * rewrites the files; a test in `npm test` fails while they differ from the code.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  ExtractorMessageCategory,
  type IConfigFile,
} from '@microsoft/api-extractor';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the committed reports live. */
export const API_REPORT_FOLDER = join(ROOT, 'docs', 'api');

/** The command that rewrites the reports, named by the check when they are stale. */
export const API_REPORT_COMMAND = 'npm run api-report';

/**
 * Where the declarations and the reports to compare are written. One fixed folder: a warning
 * the report cannot attach to an export names its declaration file by this path.
 */
export const API_REPORT_SCRATCH = join(ROOT, '.local', 'api-report');

/** Where tsc writes the declarations in package.json's `exports` (`types`). */
const DECLARATIONS_IN_PACKAGE = './dist/types/';

/** One entry point: its import specifier, its declaration file and its report's file name. */
export interface ApiEntryPoint {
  /** What an app imports, e.g. `service-webhook-receiver/core`. */
  readonly specifier: string;
  /** The declaration file, relative to the declarations folder, e.g. `lambda/core/index.d.ts`. */
  readonly declarations: string;
  /** The report's file name without `.api.md`, e.g. `service-webhook-receiver-core`. */
  readonly reportName: string;
}

/** The entry points of package.json's `exports`, each with its declaration file. */
export function apiEntryPoints(): ApiEntryPoint[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, { types: string }>;
  };
  return Object.entries(manifest.exports).map(([subpath, { types }]) => {
    if (!types.startsWith(DECLARATIONS_IN_PACKAGE)) {
      throw new Error(`exports["${subpath}"].types is not under ${DECLARATIONS_IN_PACKAGE}`);
    }
    const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    return {
      specifier,
      declarations: types.slice(DECLARATIONS_IN_PACKAGE.length),
      reportName: specifier.replaceAll('/', '-'),
    };
  });
}

/** How a report compares with the committed one. */
export interface ApiReportOutcome {
  readonly entryPoint: ApiEntryPoint;
  /** Whether the report differs from the committed file (or there is none). */
  readonly changed: boolean;
  /** API Extractor's errors and warnings (those not written into the report itself). */
  readonly problems: readonly string[];
}

/**
 * Emits the entry points' declarations with `tsconfig.build.json` (as `npm run build` does into
 * `dist/types/`) into {@link API_REPORT_SCRATCH}, and runs API Extractor on each entry point.
 * Removes the scratch folder when done.
 *
 * @param write - rewrite the committed reports (`npm run api-report`) instead of only comparing
 */
export function apiReports(write: boolean): ApiReportOutcome[] {
  rmSync(API_REPORT_SCRATCH, { recursive: true, force: true });
  try {
    const declarations = join(API_REPORT_SCRATCH, 'types');
    execFileSync(
      join(ROOT, 'node_modules/.bin/tsc'),
      ['-p', 'tsconfig.build.json', '--outDir', declarations],
      { cwd: ROOT, stdio: 'inherit' },
    );
    return extract(declarations, write);
  } finally {
    rmSync(API_REPORT_SCRATCH, { recursive: true, force: true });
  }
}

function extract(declarationsFolder: string, write: boolean): ApiReportOutcome[] {
  const entryPoints = apiEntryPoints();
  const configs = entryPoints.map((entryPoint) =>
    ExtractorConfig.prepare({
      configObject: extractorConfig(entryPoint, declarationsFolder, API_REPORT_SCRATCH),
      configObjectFullPath: undefined,
      packageJsonFullPath: join(ROOT, 'package.json'),
    }),
  );
  // One TypeScript analysis for every entry point: they share most of their declarations.
  const [first] = configs;
  if (first === undefined) return [];
  const compilerState = CompilerState.create(first, {
    additionalEntryPoints: configs.map((config) => config.mainEntryPointFilePath),
  });
  return configs.map((config, index) => {
    const problems: string[] = [];
    const result = Extractor.invoke(config, {
      localBuild: write,
      compilerState,
      messageCallback: (message: ExtractorMessage) => {
        message.handled = true;
        // Console messages are API Extractor's own advice on the report files, said differently
        // by the callers of this function.
        if (message.category === ExtractorMessageCategory.Console) return;
        if (
          message.logLevel === ExtractorLogLevel.Error ||
          message.logLevel === ExtractorLogLevel.Warning
        ) {
          problems.push(message.formatMessageWithLocation(ROOT));
        }
      },
    });
    return {
      entryPoint: entryPoints[index] as ApiEntryPoint,
      changed: result.apiReportChanged,
      problems,
    };
  });
}

function extractorConfig(
  entryPoint: ApiEntryPoint,
  declarationsFolder: string,
  scratchFolder: string,
): IConfigFile {
  return {
    projectFolder: ROOT,
    mainEntryPointFilePath: join(declarationsFolder, entryPoint.declarations),
    compiler: {
      // Only the declarations: the repository's tsconfig.json would load every source file.
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          strict: true,
          skipLibCheck: true,
        },
        files: [join(declarationsFolder, entryPoint.declarations)],
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: entryPoint.reportName,
      reportFolder: API_REPORT_FOLDER,
      reportTempFolder: scratchFolder,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
        // Release tags (@public, @beta) are not used: everything exported is public.
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
        // A {@link} to an unexported helper is a comment's business, not the surface's.
        'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
      },
      // The comments follow TSDoc loosely (`@throws {X}`, `@default 300`); the report has none.
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
}
