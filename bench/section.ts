/** A file a section draws from its figures, written beside `bench/results.md` under `--write`. */
export interface BenchFile {
  /** Path from the repository's root, such as `docs/cost-chart.svg`. */
  readonly path: string;
  readonly text: string;
}

/** One table of results; `bench/run.ts` prints it and, under `--write`, writes it to `bench/results.md`. */
export interface BenchTable {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
  readonly notes: readonly string[];
  /** Files drawn from the table's figures. */
  readonly files?: readonly BenchFile[];
}

/** A part of `npm run bench`; add one by exporting it and listing it in `bench/run.ts`. */
export interface BenchSection {
  /** Short name, also accepted on the command line to run only this section. */
  readonly name: string;
  /** One table, or several written one after the other in the section's block. */
  run(): BenchTable | readonly BenchTable[] | Promise<BenchTable | readonly BenchTable[]>;
}
