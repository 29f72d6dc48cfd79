import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { awsStep } from '../../devkit/stack-outputs.js';
import type { ToolIo } from '../../devkit/tool-io.js';
import { pauseUntil } from './watch.js';

/**
 * The smoke's wait in a log group: the example consumer logs the booking id once it has parsed
 * the booking.
 * @module
 */

/** How often the log group is searched: FilterLogEvents allows a few calls a second per account. */
const LOG_POLL_MS = 1000;

/** Log timestamps come from Lambda's clock: a minute of skew still finds the event. */
const CLOCK_SKEW_MS = 60_000;

/**
 * Searches the log group once a second for an event holding the booking id (the example consumer
 * logs `Booking received` with `booking_id` once it has parsed the booking) until `deadline`.
 * Needs `logs:FilterLogEvents` on the log group.
 *
 * @returns whether such an event was found
 */
export async function waitInLog(
  logGroupName: string,
  bookingId: string,
  sentAt: number,
  deadline: number,
  io: ToolIo,
  stop: AbortSignal,
): Promise<boolean> {
  const client = new CloudWatchLogsClient({});
  try {
    for (;;) {
      const found = await awsStep('CloudWatch Logs', io.networkTimeoutMs, (abortSignal) =>
        findLogEvent(client, logGroupName, bookingId, sentAt - CLOCK_SKEW_MS, abortSignal),
      );
      if (found !== undefined) {
        io.out(
          `seen by consumer: log stream ${found.logStreamName ?? '?'} at ${new Date(found.timestamp ?? Date.now()).toISOString()}`,
        );
        return true;
      }
      if (!(await pauseUntil(LOG_POLL_MS, deadline, stop))) return false;
    }
  } finally {
    client.destroy();
  }
}

/** The first event since `startTime` whose text holds the booking id, every page searched. */
async function findLogEvent(
  client: CloudWatchLogsClient,
  logGroupName: string,
  bookingId: string,
  startTime: number,
  abortSignal: AbortSignal,
) {
  let nextToken: string | undefined;
  do {
    const page = await client.send(
      new FilterLogEventsCommand({
        logGroupName,
        startTime,
        // A quoted term matches the exact digits wherever they stand in the event.
        filterPattern: `"${bookingId}"`,
        ...(nextToken === undefined ? {} : { nextToken }),
      }),
      { abortSignal },
    );
    const event = page.events?.find((candidate) => candidate.message?.includes(bookingId));
    if (event !== undefined) return event;
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return undefined;
}
