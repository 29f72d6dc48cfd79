/** How long and from which seed a fast-check property runs, and the test timeout that fits. */
export interface PropertyRuns {
  readonly numRuns: number;
  readonly seed: number;
  /** Milliseconds for the `it` holding the property. */
  readonly timeout: number;
}

/** Fixed, so `npm test` checks the same inputs on every machine and a failure replays as is. */
const NPM_TEST_SEED = 20_261_121;
const NPM_TEST_TIMEOUT_MS = 120_000;
const FUZZ_TIMEOUT_MS = 6 * 60 * 60 * 1000;

/**
 * Settings for `fc.assert`: in `npm test`, `runs` runs from a fixed seed, so CI time stays bounded
 * and results repeat; under `npm run fuzz` (`FUZZ_RUNS` set), that many runs from a random seed,
 * printed so a failure can be replayed with `FUZZ_SEED=<seed>`. Call it at module level, before
 * any test captures stdout/stderr, so the seed line reaches the terminal.
 *
 * @param name - which property, for the printed line
 * @param runs - the run count for `npm test`
 * @param env - the environment to read, `process.env` by default
 */
export function propertyRuns(
  name: string,
  runs: number,
  env: Readonly<Record<string, string | undefined>> = process.env,
): PropertyRuns {
  const fuzzRuns = wholeNumber(env, 'FUZZ_RUNS', 1);
  const fuzzSeed = wholeNumber(env, 'FUZZ_SEED', 0);
  if (fuzzRuns === undefined && fuzzSeed === undefined) {
    return { numRuns: runs, seed: NPM_TEST_SEED, timeout: NPM_TEST_TIMEOUT_MS };
  }
  const seed = fuzzSeed ?? Math.floor(Math.random() * 2 ** 31);
  const numRuns = fuzzRuns ?? runs;
  process.stderr.write(`fuzz ${name}: ${numRuns} runs, replay with FUZZ_SEED=${seed}\n`);
  return { numRuns, seed, timeout: FUZZ_TIMEOUT_MS };
}

function wholeNumber(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  minimum: number,
): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= minimum)) {
    throw new Error(`${name} must be a whole number >= ${minimum}, got '${text}'`);
  }
  return value;
}
