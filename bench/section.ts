/** One table of results; `bench/run.ts` prints it and writes it to `bench/results.md`. */
export interface BenchTable {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
  readonly notes: readonly string[];
}

/** A part of `npm run bench`; add one by exporting it and listing it in `bench/run.ts`. */
export interface BenchSection {
  /** Short name, also accepted on the command line to run only this section. */
  readonly name: string;
  /** One table, or several written one after the other in the section's block. */
  run(): BenchTable | readonly BenchTable[] | Promise<BenchTable | readonly BenchTable[]>;
}
