import { open } from 'node:fs/promises';

/**
 * A file's bytes when it holds at most `maxBytes`, else `'too-large'`. At most `maxBytes + 1`
 * bytes are ever read, so a path to `/dev/zero` or to a huge file costs no more than a file of
 * the limit's size.
 *
 * @param path - the file
 * @param maxBytes - the most it may hold
 * @throws the file system's error when the file cannot be opened or read (`EISDIR`, `EACCES`, …)
 */
export async function readFileUpTo(path: string, maxBytes: number): Promise<Buffer | 'too-large'> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length > maxBytes ? 'too-large' : buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** Why a file could not be read, in words, for a one-line message: `it is a directory (EISDIR)`. */
export function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const words = code === undefined ? undefined : READ_ERRORS[code];
  if (words !== undefined) return `${words} (${code})`;
  return code ?? (error as Error).message;
}

const READ_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'too many symbolic links',
};
