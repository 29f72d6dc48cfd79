/**
 * The repository's import graph and the rules it keeps: imports point down the layers of
 * {@link LAYERS}, no file reaches itself again through its imports, and the imports of
 * {@link FORBIDDEN_IMPORTS} are absent. Read by a unit test so that a folder leaning on one above
 * it, a new cycle or a forbidden import fails the fast loop the day it appears.
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The source folders from the runtime up to the tools, lowest first. A file may import its own
 * folder or a folder of a lower rank; folders of one rank (the two functions, the local run and
 * the tools) are independent of each other.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['lambda/core'],
  ['lambda/contract'],
  ['lambda/receiver', 'lambda/consumer'],
  ['lib'],
  ['devkit'],
  ['local', 'cli'],
  ['loadtest', 'bin', 'build'],
  ['bench'],
];

/** An import the layers allow but the repository does not: from these folders, of these targets. */
export interface ForbiddenImport {
  /** Folders whose files may not import the targets. */
  readonly from: readonly string[];
  /** Folders (relative imports) or packages (bare specifiers, with their subpaths). */
  readonly to: readonly string[];
  /** Why, for the test's message. */
  readonly why: string;
}

/** The imports no file makes, though {@link LAYERS} would allow them. */
export const FORBIDDEN_IMPORTS: readonly ForbiddenImport[] = [
  {
    from: ['lib'],
    to: ['lambda/receiver', 'lambda/consumer'],
    why: "the construct reads the functions' names, defaults and rules from lambda/contract",
  },
  {
    from: ['lambda', 'local', 'devkit', 'cli'],
    to: ['aws-cdk-lib', 'constructs'],
    why: 'the functions, the local run and the tools run without the CDK',
  },
];

/** One import between two source files, as paths relative to the repository root. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

/** The folder of {@link LAYERS} a file belongs to, or `undefined` for a file outside them. */
export function layerFolderOf(file: string): string | undefined {
  return LAYERS.flat().find((folder) => file.startsWith(`${folder}/`));
}

function rankOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

/**
 * Every relative import (static, dynamic, type-only and re-export) of the given files, resolved to
 * the `.ts` file it names.
 *
 * @param root - the repository root
 * @param files - source files relative to `root`
 */
export function importEdges(root: string, files: readonly string[]): ImportEdge[] {
  return files.flatMap((from) =>
    importSpecifiers(root, from)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({
        from,
        to: relative(root, resolve(root, dirname(from), specifier)).replace(/\.js$/, '.ts'),
      })),
  );
}

/**
 * Every package import (static, dynamic, type-only and re-export) of the given files: `to` is the
 * bare specifier as written (`aws-cdk-lib/aws-sqs`, `node:fs`).
 *
 * @param root - the repository root
 * @param files - source files relative to `root`
 */
export function packageImports(root: string, files: readonly string[]): ImportEdge[] {
  return files.flatMap((from) =>
    importSpecifiers(root, from)
      .filter((specifier) => !specifier.startsWith('.'))
      .map((to) => ({ from, to })),
  );
}

function importSpecifiers(root: string, file: string): string[] {
  const text = readFileSync(resolve(root, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName }) => fileName);
}

/** Whether `path` is `folder` itself or inside it (a package's subpath, a folder's file). */
function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/**
 * The imports {@link FORBIDDEN_IMPORTS} names, among relative edges and package imports alike,
 * each with the rule's reason.
 *
 * @param edges - imports from {@link importEdges} and {@link packageImports}
 * @param rules - the rules, {@link FORBIDDEN_IMPORTS} by default
 */
export function forbiddenImports(
  edges: readonly ImportEdge[],
  rules: readonly ForbiddenImport[] = FORBIDDEN_IMPORTS,
): (ImportEdge & { readonly why: string })[] {
  return edges.flatMap((edge) => {
    const rule = rules.find(
      ({ from, to }) =>
        from.some((folder) => isWithin(edge.from, folder)) &&
        to.some((target) => isWithin(edge.to, target)),
    );
    return rule === undefined ? [] : [{ ...edge, why: rule.why }];
  });
}

/** The imports that point at a folder of a higher rank, or at another folder of the same rank. */
export function upwardImports(edges: readonly ImportEdge[]): ImportEdge[] {
  return edges.filter(({ from, to }) => {
    const fromFolder = layerFolderOf(from);
    const toFolder = layerFolderOf(to);
    if (fromFolder === undefined || toFolder === undefined || fromFolder === toFolder) return false;
    return rankOf(toFolder) >= rankOf(fromFolder);
  });
}

/**
 * The import cycles: each strongly connected set of two or more files (or a file importing
 * itself), sorted, found with Tarjan's algorithm.
 */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    lowLink.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        lowLink.set(file, Math.min(lowLink.get(file) as number, lowLink.get(to) as number));
      } else if (onStack.has(to)) {
        lowLink.set(file, Math.min(lowLink.get(file) as number, index.get(to) as number));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1 || (next.get(file) ?? []).includes(file)) cycles.push(members.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return cycles;
}
