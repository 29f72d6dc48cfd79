import { fstatSync, realpathSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { EXIT_STATUS, ToolError, UsageError } from './exit-status.js';
import { NETWORK_TIMEOUT_MS } from './network.js';
import { terminalSafeLines } from './terminal-text.js';

// Tools import the usage error with the rest of their frame from here; it lives with the other
// exit statuses.
export { UsageError };

/** What a command-line tool reads and writes, injectable so tests can run tools in-process. */
export interface ToolIo {
  /** Writes one line of results to stdout. */
  readonly out: (line: string) => void;
  /**
   * Writes one line of results to stdout and resolves once all of it is written (to the file,
   * pipe or terminal), for a tool that must know what reached the reader before it acts on it;
   * rejects with the write's error (`EPIPE` when the reader is gone). Without it, {@link writeLine}
   * falls back to `out`, whose lines are then written at once (an in-memory capture).
   */
  readonly writeOut?: (line: string) => Promise<void>;
  /** Writes one line of diagnostics to stderr. */
  readonly err: (line: string) => void;
  /** Environment variables (`process.env`). */
  readonly env: NodeJS.ProcessEnv;
  /** Standard input, for keys piped in with `-`. */
  readonly stdin: NodeJS.ReadableStream;
  /** The user's directory: paths given on the command line (key and payload files) are relative to it. */
  readonly cwd: string;
  /** The project directory, which holds the `.env` that `npm start` writes. */
  readonly projectDir: string;
  /** How long one network call may take ({@link NETWORK_TIMEOUT_MS}; tests shorten it). */
  readonly networkTimeoutMs: number;
}

/**
 * The AWS SDK's documented switch for its notice that its versions published from January 2027
 * require Node.js 22. The versions this project pins support Node.js 20 (their `engines`), and
 * the README states the Node.js the project needs, so the tools do not print ten lines about
 * versions they do not run.
 */
export const SDK_NODE_NOTICE_SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

/**
 * The real process's streams and environment. `npm run` starts scripts in the project directory
 * and passes the directory the user typed the command in as `INIT_CWD`: file arguments are
 * resolved against the latter, as the user expects. Turns the SDK's Node.js notice off (see
 * {@link SDK_NODE_NOTICE_SWITCH}).
 */
export function processIo(): ToolIo {
  // Read when an SDK client is made, which every tool does after this; a value set stays.
  process.env[SDK_NODE_NOTICE_SWITCH] ??= 'true';
  const err = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  return {
    out: (line) => {
      guardStdout(err);
      process.stdout.write(`${line}\n`);
    },
    writeOut: (line) => {
      guardStdout(err);
      return writeStdout(`${line}\n`);
    },
    err,
    env: process.env,
    stdin: process.stdin,
    cwd: process.env.INIT_CWD ?? process.cwd(),
    projectDir: process.cwd(),
    networkTimeoutMs: NETWORK_TIMEOUT_MS,
  };
}

/**
 * Writes `line` with `io.writeOut` when the tool runs with one, else with `io.out`.
 *
 * @returns once the line is written
 * @throws the write's error (see {@link isClosedPipe})
 */
export async function writeLine(io: ToolIo, line: string): Promise<void> {
  if (io.writeOut !== undefined) return io.writeOut(line);
  io.out(line);
}

/** Whether a write failed because its reader went away (`| head` had read enough). */
export function isClosedPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
}

/** A write error of stdout that a {@link writeStdout} caller was given, and handles itself. */
let handedStdoutError: unknown;
let stdoutGuarded = false;

/**
 * Stops the process when a line given to `out` cannot be written, instead of the stack trace of
 * an unhandled 'error' event: quietly with status 0 when the reader went away (`| head`), else
 * with one line on stderr and status 1 (a full disk, `> /dev/full`). Installed with the first
 * line, so a test that only asks for {@link processIo} changes nothing in its own process.
 */
function guardStdout(err: (line: string) => void): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error === handedStdoutError) return;
    if (isClosedPipe(error)) process.exit(EXIT_STATUS.ok);
    err(`Could not write the output: ${error.code ?? error.message}`);
    process.exit(EXIT_STATUS.refused);
  });
}

/**
 * Writes `text` to stdout and resolves once all of it is written. A file or device is written
 * directly until every byte is taken (Node's file stream ignores a short write, which a nearly
 * full disk makes, and would report a cut line as written); a pipe or terminal through
 * `process.stdout`, whose callback comes once the whole text is written.
 */
function writeStdout(text: string): Promise<void> {
  if (!stdoutIsDirect()) {
    return new Promise((resolve, reject) => {
      process.stdout.write(text, (error) => {
        if (error === null || error === undefined) return resolve();
        handedStdoutError = error;
        reject(error);
      });
    });
  }
  const bytes = Buffer.from(text);
  try {
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(1, bytes, offset);
  } catch (error) {
    return Promise.reject(error);
  }
  return Promise.resolve();
}

let stdoutKind: 'direct' | 'stream' | undefined;

/** Whether stdout is a file or a device other than a terminal, which Node writes synchronously. */
function stdoutIsDirect(): boolean {
  if (stdoutKind === undefined) {
    const stats = fstatSync(1);
    stdoutKind =
      stats.isFile() || (stats.isCharacterDevice() && !process.stdout.isTTY) ? 'direct' : 'stream';
  }
  return stdoutKind === 'direct';
}

/**
 * Whether the module at `moduleUrl` is the script node was started with (`tsx cli/x.ts`), as
 * opposed to imported by a test. Symlinks are resolved so both sides name the same file.
 */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  return pathToFileURL(realpathSync(script)).href === moduleUrl;
}

/**
 * Parses `--name value` / `--flag` options strictly (unknown options and stray arguments are
 * errors), turning the parser's complaints into {@link UsageError}s.
 *
 * @param args - the arguments after `--`
 * @param options - the tool's options, as for `util.parseArgs`
 * @throws {UsageError} on an unknown option, a missing value or a positional argument
 */
export function parseToolArgs<const T extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: T,
) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const unknown = (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    throw new UsageError((error as Error).message, { showUsage: unknown });
  }
}

/** What a tool's `main` needs to know about itself to report usage. */
export interface ToolDescription {
  /** The npm script name, e.g. `send`, used in "see npm run send -- --help". */
  readonly name: string;
  /** The text `--help` prints. */
  readonly usage: string;
}

/**
 * The common frame of every tool: parse the arguments (`'help'` prints the usage on stdout and
 * exits 0), then run with the parsed options. A {@link ToolError} from either step is one line on
 * stderr, its control characters shown as escapes since it may quote what was typed or answered,
 * and its exit status (see `exit-status.ts`); a {@link UsageError} points at `--help`, and for an
 * unknown option is followed by the usage.
 *
 * @param io - where usage and errors go
 * @param tool - name and usage text
 * @param parse - turns the arguments into options, or `'help'`
 * @param run - does the work; resolves with the exit status
 */
export async function runTool<Options>(
  io: ToolIo,
  tool: ToolDescription,
  parse: () => Options | 'help' | Promise<Options | 'help'>,
  run: (options: Options) => Promise<number>,
): Promise<number> {
  try {
    const options = await parse();
    if (options === 'help') {
      io.out(tool.usage);
      return EXIT_STATUS.ok;
    }
    return await run(options);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    // Messages quote arguments and answers as they came, escape sequences included.
    const message = terminalSafeLines(error.message);
    if (!(error instanceof UsageError)) {
      io.err(message);
    } else {
      io.err(`${message} (see npm run ${tool.name} -- --help)`);
      if (error.showUsage) io.err(`\n${tool.usage}`);
    }
    return error.exitStatus;
  }
}

/** Whether `text` is an absolute http(s) URL, the only kind the tools send to or read from. */
export function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}

/** A scheme, then the slashes or backslashes a URL parser skips before the authority. */
const AUTHORITY_START = /^[a-z][a-z0-9+.-]*:[/\\]*/i;

/**
 * Where the authority starts in text that is no http(s) URL: after a scheme only when a slash
 * follows it (in `user:pw@host` the `user:` is userinfo, not a scheme), else after any leading
 * slashes (`//user:pw@host`).
 */
const LOOSE_AUTHORITY_START = /^(?:[a-z][a-z0-9+.-]*:[/\\]+|[/\\]*)/i;

/**
 * `url` as a tool prints it: with the userinfo before its host replaced by `***`
 * (`http://***@host/webhook`), so a password or a token given for basic auth or a proxy (a token
 * is often the user name) does not end up in a terminal's scrollback, a CI log or a bug report.
 * In an http(s) URL the userinfo is what the WHATWG URL parser takes for it (up to the last `@`
 * of the authority, also after `http:` without slashes or with backslashes). In any other text
 * (an error message quotes what was typed) it is everything after a scheme and its slashes, or
 * from the start when none lead, up to the last `@`, unless white space shows it is no URL. The
 * rest is kept as typed, not normalised.
 *
 * @param url - a URL given by the user, e.g. `--url` or `--queue-url`
 */
export function urlWithoutPassword(url: string): string {
  if (isHttpUrl(url)) {
    const { username, password } = new URL(url);
    if (username === '' && password === '') return url;
    const start = AUTHORITY_START.exec(url)?.[0].length ?? 0;
    const rest = url.slice(start);
    const end = rest.search(/[/?#\\]/);
    const authority = end === -1 ? rest : rest.slice(0, end);
    return `${url.slice(0, start)}***${rest.slice(authority.lastIndexOf('@'))}`;
  }
  const start = LOOSE_AUTHORITY_START.exec(url)?.[0].length ?? 0;
  const rest = url.slice(start);
  const at = rest.lastIndexOf('@');
  if (at === -1 || /\s/.test(rest.slice(0, at))) return url;
  return `${url.slice(0, start)}***${rest.slice(at)}`;
}
