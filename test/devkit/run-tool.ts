import { Readable } from 'node:stream';
import { NETWORK_TIMEOUT_MS } from '../../devkit/network.js';
import type { ToolIo } from '../../devkit/tool-io.js';

/** What a tool printed and how it exited. */
export interface ToolRun {
  readonly status: number;
  readonly out: string[];
  readonly err: string[];
}

/** Where an in-process tool run reads from; nothing from the test process leaks in. */
export interface ToolRunOptions {
  /** The tool's environment (default: empty). */
  readonly env?: NodeJS.ProcessEnv;
  /** Directory of relative file arguments and of `.env` (default: the test process's). */
  readonly cwd?: string;
  /** Text on stdin (default: none). */
  readonly stdin?: string;
  /** Collects stdout lines as they come, for tools that run until stopped. */
  readonly out?: string[];
  /** How long one network call may take (default: the tools' own `NETWORK_TIMEOUT_MS`). */
  readonly networkTimeoutMs?: number;
  /**
   * Writes of lines whose delivery the tool awaits (`writeOut`); a rejection plays a stdout that
   * cannot be written. Default: none, so such lines go to `out`.
   */
  readonly writeOut?: (line: string) => Promise<void>;
}

/**
 * Runs a tool's `main` in-process with captured output: much cheaper than a child process, and
 * `main` is exactly what the script's entry point runs.
 *
 * @param main - the tool's `main`
 * @param args - its arguments
 * @param options - environment, working directory, stdin
 */
export async function runTool(
  main: (args: readonly string[], io: ToolIo) => Promise<number>,
  args: readonly string[],
  options: ToolRunOptions = {},
): Promise<ToolRun> {
  const out = options.out ?? [];
  const err: string[] = [];
  const status = await main(args, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: options.env ?? {},
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    cwd: options.cwd ?? process.cwd(),
    projectDir: options.cwd ?? process.cwd(),
    networkTimeoutMs: options.networkTimeoutMs ?? NETWORK_TIMEOUT_MS,
    ...(options.writeOut === undefined ? {} : { writeOut: options.writeOut }),
  });
  return { status, out, err };
}
