/**
 * The exit statuses of every command-line tool (`send`, `sign`, `verify`, `consume`, `replay`,
 * `redrive`, `rotate-secret`, `smoke`, and `npm start` before it serves), one per kind of failure,
 * and the errors that carry them. A script can tell "no key" from "the receiver said no" from "no
 * answer" by the status alone, whichever tool it ran. Documented in docs/cli.md.
 * @module
 */
import { WebhookReceiverError } from '../lambda/core/errors.js';

/** What a tool's exit status means. */
export const EXIT_STATUS = {
  /** Done: every call accepted, signed, valid, consumed, rotated. */
  ok: 0,
  /**
   * The tool did its work and the answer is no: a call answered other than 2xx, a signature not
   * valid, a body that is not JSON, Secrets Manager or the queue refusing the request.
   */
  refused: 1,
  /** The command line is wrong (an unknown option, a missing choice, a bad value). */
  usage: 2,
  /**
   * No key to sign or verify with: none set, an empty key, a key file that cannot be read, a
   * secret holding no usable key, or a `.env` that cannot be parsed.
   */
  noKey: 3,
  /** The network: nothing answered in time, the connection was refused or reset, no such host. */
  network: 4,
} as const;

/** The exit statuses as every tool's `--help` ends with them. */
export const EXIT_STATUS_USAGE = `Exit status: 0 done; 1 refused (a call answered other than 2xx, a signature not valid,
a body that is not JSON, AWS refusing the request); 2 usage error; 3 no key (none set, empty,
unreadable, or a .env line that cannot be read); 4 network (no answer in time, connection
refused or reset, unknown host).`;

/** One of {@link EXIT_STATUS}'s values. */
export type ExitStatus = (typeof EXIT_STATUS)[keyof typeof EXIT_STATUS];

/**
 * A failure a tool reports as one line on stderr and its exit status, instead of a stack trace.
 * Its message never holds a key or a payload.
 */
export class ToolError extends WebhookReceiverError {
  /** The status the tool exits with. */
  readonly exitStatus: ExitStatus;

  /**
   * @param message - what failed, in one line
   * @param exitStatus - the kind of failure
   * @param options - the underlying error, if any
   */
  constructor(message: string, exitStatus: ExitStatus, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.exitStatus = exitStatus;
  }
}

/** A command-line mistake: the tool shows the message with a pointer to `--help` and exits 2. */
export class UsageError extends ToolError {
  /** Whether the tool prints its usage after the message: for options it does not know. */
  readonly showUsage: boolean;

  /**
   * @param message - what is wrong with the arguments, in one line
   * @param options - `showUsage` when the user needs the list of options to fix it
   */
  constructor(message: string, options: { readonly showUsage?: boolean } = {}) {
    super(message, EXIT_STATUS.usage);
    this.showUsage = options.showUsage ?? false;
  }
}

/** No key to sign or verify with (exit 3); the message says where a key goes. */
export class NoKeyError extends ToolError {
  /** @param message - why there is no key, never the key or a path that might be one */
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, EXIT_STATUS.noKey, options);
  }
}

/** A network call that got no usable answer: timed out, refused, reset, unknown host (exit 4). */
export class NetworkError extends ToolError {
  /** @param message - what was called and what went wrong */
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, EXIT_STATUS.network, options);
  }
}
