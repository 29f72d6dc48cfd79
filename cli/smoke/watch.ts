import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT_STATUS, ToolError } from '../../devkit/exit-status.js';

/**
 * What the smoke's steps share: where the booking is waited for, the failure after the receiver
 * was reached, and the wait between polls.
 * @module
 */

/** Where the smoke booking is waited for. */
export type SmokeWatch =
  | { readonly kind: 'queue'; readonly queueUrl: string }
  | { readonly kind: 'consumer'; readonly logGroupName: string };

/** The smoke failed after the receiver was reached: refused, ignored, or never seen (exit 1). */
export class SmokeFailedError extends ToolError {
  /** @param message - what failed, starting `smoke failed:` */
  constructor(message: string) {
    super(message, EXIT_STATUS.refused);
  }
}

/**
 * Waits `ms`, or until `deadline`, whichever is sooner.
 *
 * @returns false when the deadline has passed or `stop` aborted the wait
 */
export async function pauseUntil(
  ms: number,
  deadline: number,
  stop: AbortSignal,
): Promise<boolean> {
  const left = deadline - Date.now();
  if (left <= 0 || stop.aborted) return false;
  try {
    await sleep(Math.min(ms, left), undefined, { signal: stop });
  } catch {
    return false;
  }
  return Date.now() < deadline;
}
