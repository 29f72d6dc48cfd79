/**
 * Vitest global setup: the test run's temporary files go to a folder of its own under the
 * checkout's git-ignored `.local/`, never the system temp folder. Tests clean up after themselves;
 * whatever one leaves behind is named on stderr (so the leak is found and fixed) and removed.
 * @module
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const TEST_TMPDIR = fileURLToPath(new URL('../../.local/test-tmp/', import.meta.url));

/** Points TMPDIR (what `os.tmpdir()` reads) at the run's folder before any worker starts. */
export function setup(): () => void {
  rmSync(TEST_TMPDIR, { recursive: true, force: true });
  mkdirSync(TEST_TMPDIR, { recursive: true });
  process.env.TMPDIR = TEST_TMPDIR;
  return teardown;
}

function teardown(): void {
  // Compile caches kept under the temp folder by design, not leaks: tsx's `tsx-<uid>` and, on
  // Node 22 and later, `node-compile-cache` (module.enableCompileCache).
  const left = readdirSync(TEST_TMPDIR).filter(
    (name) => !/^tsx-\d+$/.test(name) && name !== 'node-compile-cache',
  );
  if (left.length > 0) {
    process.stderr.write(
      `Temporary files left behind by the tests (removed now): ${left.slice(0, 20).join(', ')}\n`,
    );
  }
  rmSync(TEST_TMPDIR, { recursive: true, force: true });
}
