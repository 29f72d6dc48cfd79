/**
 * The environment of a tool a test starts as npm runs it (node with tsx): the PATH, the test
 * run's temp folder (TMPDIR, which `temp-folder.ts` points under `.local/`) and tsx compiling in
 * memory, as the npm scripts set it; nothing else of the developer's shell.
 *
 * @param extra - variables for this run, over the ones above
 */
export function toolEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    TMPDIR: process.env.TMPDIR,
    TSX_DISABLE_CACHE: '1',
    ...extra,
  };
}
