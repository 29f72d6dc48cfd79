import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** The checkout's git-ignored `.local/`: tests keep their files here, never in the system temp folder. */
export const LOCAL_DIR = resolve(import.meta.dirname, '../../.local');

/** Creates a new, empty directory under `.local/` whose name starts with `prefix`. */
export async function makeScratchDir(prefix: string): Promise<string> {
  await mkdir(LOCAL_DIR, { recursive: true });
  return mkdtemp(join(LOCAL_DIR, `${prefix}-`));
}

/**
 * A directory under `.local/` for one test file, created before its tests and removed after them.
 * Call at module level; the returned function gives the path once the tests run.
 */
export function scratchDir(prefix: string): () => string {
  let dir = '';
  beforeAll(async () => {
    dir = await makeScratchDir(prefix);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}
