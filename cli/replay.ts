/**
 * `npm run replay`: re-queue the archived verified deliveries of a time window, from the archive
 * of a deployed stack or of the local run of `npm start`.
 * @module
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  checkArchiveWindow,
  LONGEST_ARCHIVE_DAYS,
  type TimeWindow,
} from '../devkit/archive-reader.js';
import { isoTimeOption } from '../devkit/cli-options.js';
import {
  EXIT_STATUS,
  EXIT_STATUS_USAGE,
  type ExitStatus,
  ToolError,
} from '../devkit/exit-status.js';
import { DEFAULT_STATE_DIR, LOCAL_PORTS } from '../devkit/local-run.js';
import {
  LOCAL_REFUSED_HINT,
  localTarget,
  type ReceiverTarget,
  stackTarget,
} from '../devkit/receiver-target.js';
import { type ReplayReport, ReplayStopped, replayWindow } from '../devkit/replay-core.js';
import { terminalSafe } from '../devkit/terminal-text.js';
import {
  isEntryPoint,
  parseToolArgs,
  processIo,
  runTool,
  type ToolIo,
  UsageError,
} from '../devkit/tool-io.js';
import { ARCHIVE_LAYOUT } from '../lambda/contract/archive-layout.js';
import {
  DEFAULT_STACK_NAME,
  ENDPOINT_NAME_RULE,
  isEndpointName,
  STACK_OUTPUTS,
} from '../lambda/contract/endpoints.js';
import type { ArchiveRecord } from '../lambda/receiver/archive-record.js';

/** Archive objects read or deliveries sent between two progress lines. */
const PROGRESS_EVERY = 100;

const USAGE = `Usage: npm run replay -- --from <ISO-8601> --to <ISO-8601> [--endpoint <name>] [--stack <name>] [--dry-run]

Re-queues the archived verified deliveries received from --from (included) to --to (excluded),
oldest first (in the archive's order), each with its original body, attributes and dedup key: an idempotent consumer skips
the bookings it already applied. Ignored and rejected calls are archived but never re-queued.

  --from TIME       start of the window, ISO 8601 with a time zone, e.g. 2026-11-27T09:00:00Z
  --to TIME         end of the window (excluded), after --from and at most ${LONGEST_ARCHIVE_DAYS} days (the longest
                    archiveDays, and a day for S3's expiry) plus ${ARCHIVE_LAYOUT.bufferSeconds / 60} minutes (Firehose's buffer) later
  --endpoint NAME   only the deliveries to endpoint NAME (a receiver serving several)
  --stack NAME      the deployed stack (cdk deploy names it ${DEFAULT_STACK_NAME} unless -c stackName):
                    its ${STACK_OUTPUTS.queueUrl} and ${STACK_OUTPUTS.archiveBucketName} outputs (normal AWS
                    credentials and region apply); without it, the local run of npm start
                    (queue on ${LOCAL_PORTS.queue.variable}, default ${LOCAL_PORTS.queue.default}; archive on ${LOCAL_PORTS.archive.variable}, default ${LOCAL_PORTS.archive.default},
                    signed with the credentials npm start keeps in LOCAL_STATE_DIR, default ${DEFAULT_STATE_DIR})
  --dry-run         list what would be sent (time, endpoint, event, dedup key), send nothing
  --help            show this help

Prints progress on stderr after each page of the archive listing (1,000 objects) and every
${PROGRESS_EVERY} objects read and deliveries sent, and ends with "replayed <n> of <m> deliveries".
A delivery the queue refuses (too large, too many attributes) is reported on stderr by its
archive key and the queue's reason, and skipped; the others are sent, and the exit status is 1.
Any other failed send stops the replay. Bodies are personal data: they are never printed.

${EXIT_STATUS_USAGE}`;

/** The archive and the queue a replay reads and sends to. */
interface Target {
  readonly name: string;
  readonly queueUrl: string;
  readonly bucket: string;
  readonly local: boolean;
}

interface ReplayOptions {
  readonly window: TimeWindow;
  readonly endpoint: string | undefined;
  readonly stack: string | undefined;
  readonly dryRun: boolean;
}

/** A refusal the user can act on (no such output, no archive), reported in one line, exit 1. */
class ReplayFailure extends ToolError {
  /** @param message - what is missing and what to do */
  constructor(message: string) {
    super(message, EXIT_STATUS.refused);
  }
}

/**
 * Runs the tool with command-line `args`; resolves with the exit status (0 done, 1 failure or a
 * delivery the queue refused, 2 usage error).
 *
 * @param args - arguments after `--`
 * @param io - streams, environment and working directory
 */
export function main(args: readonly string[], io: ToolIo): Promise<number> {
  return runTool(
    io,
    { name: 'replay', usage: USAGE },
    () => parseOptions(args),
    (options) => replay(options, io),
  );
}

async function replay(options: ReplayOptions, io: ToolIo): Promise<number> {
  let target: Target | undefined;
  let s3: S3Client | undefined;
  let sqs: SQSClient | undefined;
  try {
    const found = await findTarget(options.stack, io);
    target = found.target;
    s3 = found.receiver.s3();
    sqs = found.receiver.sqs();
    const { queueUrl } = target;
    const report = await replayWindow(
      {
        s3,
        bucket: target.bucket,
        window: options.window,
        queue: {
          client: sqs,
          url: queueUrl,
          timeoutMs: io.networkTimeoutMs,
          refusedHint: LOCAL_REFUSED_HINT,
        },
        select: (record) => options.endpoint === undefined || record.endpoint === options.endpoint,
        dryRun: options.dryRun,
        archive: {
          onListed: (listed) => io.err(`listed ${listed} archive objects so far`),
          onObject: (read, listed) => {
            if (read % PROGRESS_EVERY === 0) io.err(`read ${read} of ${listed} archive objects`);
          },
          timeoutMs: io.networkTimeoutMs,
          refusedHint: LOCAL_REFUSED_HINT,
        },
      },
      {
        onDelivery: ({ record }) => {
          if (options.dryRun) io.out(describeDelivery(record));
        },
        onSent: (sent) => {
          if (sent % PROGRESS_EVERY === 0) io.err(`${sent} sent so far`);
        },
        onRefused: ({ key, requestId, reason }) =>
          io.err(
            `the queue refused the delivery ${requestId ?? '(no request id)'} in ${terminalSafe(key)}, skipped: ${reason}`,
          ),
      },
    );
    reportSkipped(report, io);
    if (options.dryRun) {
      io.out(`replayed 0 of ${report.total} deliveries (--dry-run: nothing sent to ${queueUrl})`);
      return EXIT_STATUS.ok;
    }
    if (report.refused > 0) {
      io.err(
        `${report.refused} of ${report.total} deliveries refused by the queue (listed above); the others were sent`,
      );
    }
    io.out(`replayed ${report.sent} of ${report.total} deliveries`);
    return report.refused > 0 ? EXIT_STATUS.refused : EXIT_STATUS.ok;
  } catch (error) {
    const stopped = error instanceof ReplayStopped ? error : undefined;
    const failure = describeFailure(stopped?.cause ?? error, options, target);
    io.err(failure.message);
    if (stopped !== undefined && stopped.report.total > 0 && !options.dryRun) {
      io.out(`replayed ${stopped.report.sent} of ${stopped.report.total} deliveries`);
    }
    return failure.exitStatus;
  } finally {
    s3?.destroy();
    sqs?.destroy();
  }
}

/** The lines about what was read but not replayed: unreadable lines, bodies cut short. */
function reportSkipped(report: ReplayReport, io: ToolIo): void {
  if (report.unreadableLines > 0) {
    io.err(`skipped ${report.unreadableLines} archive lines that are not records of this receiver`);
  }
  const { cut } = report;
  if (cut > 0) {
    io.err(
      `skipped ${cut} queued ${cut === 1 ? 'delivery' : 'deliveries'} whose archived body is cut short (a record over Firehose's limit keeps only the start of its body): not replayable`,
    );
  }
}

/**
 * One line of `--dry-run`: when, where, what; never the body or the sender's headers. The event
 * is the sender's text (with FORWARD_EVENTS=* any string), so the line is {@link terminalSafe}.
 */
function describeDelivery(record: ArchiveRecord): string {
  const line = [
    record.received_at,
    record.endpoint === undefined ? '' : `endpoint ${record.endpoint}`,
    `event ${record.message?.attributes.event ?? '?'}`,
    `dedup_key ${record.dedup_key ?? record.message?.deduplication_id ?? '?'}`,
  ]
    .filter((part) => part !== '')
    .join(' | ');
  return terminalSafe(line);
}

/** The deployed stack's queue and archive (from its outputs), or the local run's. */
async function findTarget(
  stack: string | undefined,
  io: ToolIo,
): Promise<{ readonly target: Target; readonly receiver: ReceiverTarget }> {
  const receiver =
    stack === undefined
      ? localTarget(io.env, io.projectDir)
      : await stackTarget(stack, io.env, io.networkTimeoutMs);
  const { queueUrl, bucket } = receiver;
  if (queueUrl === undefined) {
    throw new ReplayFailure(`stack ${stack} has no ${STACK_OUTPUTS.queueUrl} output`);
  }
  if (bucket === undefined) {
    throw new ReplayFailure(
      `stack ${stack} keeps no archive (no ${STACK_OUTPUTS.archiveBucketName} output): deploy it with -c archive=true`,
    );
  }
  return { target: { name: receiver.name, queueUrl, bucket, local: receiver.local }, receiver };
}

/**
 * The one line and the exit status of a failed run: the network's failures (exit 4) and the
 * tool's own as they are, AWS's and the SDK's refusals (exit 1) in words that say what to do.
 */
function describeFailure(
  error: unknown,
  options: ReplayOptions,
  target: Target | undefined,
): { readonly message: string; readonly exitStatus: ExitStatus } {
  if (error instanceof ToolError) return error;
  const refused = (message: string) => ({ message, exitStatus: EXIT_STATUS.refused });
  const { name, message } = error as Error;
  if (/Region is missing/.test(message)) {
    return refused(
      'no AWS region: set AWS_REGION (or a profile with a region in AWS_PROFILE) for --stack',
    );
  }
  if (name === 'CredentialsProviderError') {
    return refused(
      'no AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID (or run without --stack for the local run)',
    );
  }
  if (name === 'ValidationError' && /does not exist/.test(message) && options.stack) {
    return refused(
      `unknown stack ${options.stack}: no such stack in this account and region (check --stack and AWS_REGION)`,
    );
  }
  if (name === 'NoSuchBucket') {
    return refused(
      `${target?.name ?? 'the target'} has no archive bucket ${target?.bucket ?? ''}: ${
        target?.local ? 'start npm start once to create it' : 'check the stack'
      }`,
    );
  }
  return refused(`replay failed: ${name}: ${message}`);
}

function parseOptions(args: readonly string[]): ReplayOptions | 'help' {
  const values = parseToolArgs(args, {
    from: { type: 'string' },
    to: { type: 'string' },
    endpoint: { type: 'string' },
    stack: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const from = isoTimeOption('--from', values.from);
  const to = isoTimeOption('--to', values.to);
  if (to <= from) throw new UsageError('--to must be after --from');
  // Before any call: with --stack, the stack's outputs would be read first.
  checkArchiveWindow({ from, to });
  if (values.endpoint !== undefined && !isEndpointName(values.endpoint)) {
    throw new UsageError(
      `--endpoint '${values.endpoint}' is not an endpoint name: ${ENDPOINT_NAME_RULE}`,
    );
  }
  if (values.stack !== undefined && values.stack.trim() === '') {
    throw new UsageError('--stack needs a stack name');
  }
  return {
    window: { from, to },
    endpoint: values.endpoint,
    stack: values.stack,
    dryRun: values['dry-run'],
  };
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2), processIo());
}
