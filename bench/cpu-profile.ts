import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The parts of a V8 CPU profile (`node --cpu-prof`) read here. */
export interface CpuProfile {
  readonly nodes: ReadonlyArray<{
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string };
  }>;
  /** Microseconds on the monotonic clock (`process.hrtime`'s, shared by every process). */
  readonly startTime: number;
  /** The node on top of the stack at each sample. */
  readonly samples: readonly number[];
  /** Microseconds from the previous sample (from `startTime` for the first) to each sample. */
  readonly timeDeltas: readonly number[];
}

/** A part of the process the CPU time is charged to: the first rule a frame matches wins. */
export interface CpuPart {
  readonly name: string;
  /** Matched against the frame's `url` (`file:///…`, `node:…`, or empty for native code). */
  readonly url?: RegExp;
  /** Matched against the frame's function name, e.g. `(garbage collector)`. */
  readonly functionName?: RegExp;
}

/** CPU time per part within a window of a profile. */
export interface CpuBreakdown {
  /** Sampled time with something on the CPU, in milliseconds. */
  readonly busyMs: number;
  /** Sampled time the thread waited for events (`(idle)`), in milliseconds. */
  readonly idleMs: number;
  /** Milliseconds per part, in the order of the parts given, then `other`. */
  readonly parts: ReadonlyArray<{ readonly name: string; readonly ms: number }>;
}

const IDLE = '(idle)';

/**
 * Charges each sample of `profile` taken within `[fromUs, toUs]` to the part its top frame
 * matches (self time: the function that was running, not its callers; `other` when no part
 * matches). Async continuations have no caller on the stack, so self time is what attributes them.
 *
 * @param profile - a profile of one thread
 * @param window - monotonic microseconds, as `process.hrtime.bigint() / 1000n` gives them
 * @param parts - the parts, most specific first
 */
export function cpuBreakdown(
  profile: CpuProfile,
  window: { readonly fromUs: number; readonly toUs: number },
  parts: readonly CpuPart[],
): CpuBreakdown {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const partOf = new Map<number, number>();
  const totals = new Array<number>(parts.length + 1).fill(0);
  let idle = 0;
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((nodeId, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (at < window.fromUs || at > window.toUs) return;
    const frame = frames.get(nodeId);
    if (frame === undefined || frame.functionName === IDLE) {
      idle += delta;
      return;
    }
    busy += delta;
    let part = partOf.get(nodeId);
    if (part === undefined) {
      const found = parts.findIndex(
        (candidate) =>
          (candidate.url === undefined || candidate.url.test(frame.url)) &&
          (candidate.functionName === undefined || candidate.functionName.test(frame.functionName)),
      );
      part = found === -1 ? parts.length : found;
      partOf.set(nodeId, part);
    }
    totals[part] = (totals[part] ?? 0) + delta;
  });
  return {
    busyMs: busy / 1000,
    idleMs: idle / 1000,
    parts: [...parts.map(({ name }) => name), 'other'].map((name, index) => ({
      name,
      ms: (totals[index] ?? 0) / 1000,
    })),
  };
}

/**
 * Reads the profile of a process's main thread from the folder `node --cpu-prof-dir` wrote it to
 * (`CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile`, thread 0; worker threads such as
 * a module loader's write their own).
 *
 * @throws {Error} when the folder holds no main-thread profile
 */
export async function readMainThreadProfile(dir: string): Promise<CpuProfile> {
  const name = (await readdir(dir)).find((file) =>
    /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(file),
  );
  if (name === undefined) throw new Error(`no main-thread CPU profile in ${dir}`);
  return JSON.parse(await readFile(join(dir, name), 'utf8')) as CpuProfile;
}

/**
 * The names of `packages` and of every package they depend on, directly or not, as installed
 * under `projectDir/node_modules`, each found as Node.js finds it (the nearest `node_modules`
 * folder up from the package that needs it).
 *
 * @param projectDir - the folder holding `node_modules`
 * @param packages - package names, e.g. `['s3rver']`
 */
export async function dependencyClosure(
  projectDir: string,
  packages: readonly string[],
): Promise<Set<string>> {
  // Without a trailing separator, which would stop the walk up one folder short of the root.
  const root = resolve(projectDir);
  const seen = new Set<string>();
  const visit = async (name: string, from: string): Promise<void> => {
    if (seen.has(name)) return;
    for (const dir of lookupFolders(root, from)) {
      const manifest = await readFile(join(dir, name, 'package.json'), 'utf8').catch(
        () => undefined,
      );
      if (manifest === undefined) continue;
      seen.add(name);
      const { dependencies = {} } = JSON.parse(manifest) as {
        dependencies?: Record<string, string>;
      };
      for (const dependency of Object.keys(dependencies)) await visit(dependency, join(dir, name));
      return;
    }
  };
  for (const name of packages) await visit(name, root);
  return seen;
}

/** The `node_modules` folders Node.js looks in for a package required from `from`, nearest first. */
function lookupFolders(root: string, from: string): string[] {
  const folders: string[] = [];
  for (let dir = from; dir.startsWith(root); dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules') folders.push(join(dir, 'node_modules'));
    if (dir === root) break;
  }
  return folders;
}

/**
 * A pattern matching the URL of a file of any of `packages`: the innermost `node_modules` folder
 * of its path holds one of them (a copy nested in another package belongs to itself).
 *
 * @param packages - package names, scoped ones included
 */
export function packagesUrl(packages: Iterable<string>): RegExp {
  const names = [...packages].map(escapeRegExp);
  return new RegExp(`/node_modules/(?:${names.join('|')})/(?!(?:.*/)?node_modules/)`);
}

/**
 * A pattern matching the URL of a file of the project itself whose path below `projectDir`
 * starts with `path` (a regular-expression source, e.g. `lambda/`), so that a checkout under a
 * folder of that name matches nothing more.
 *
 * @param projectDir - the project folder
 * @param path - where the files lie below it
 */
export function projectUrl(projectDir: string, path: string): RegExp {
  return new RegExp(`^${escapeRegExp(pathToFileURL(resolve(projectDir)).href)}/(?:${path})`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
