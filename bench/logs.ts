import { SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { DEFAULT_SYSTEM_LOG_LEVEL } from '../lib/receiver-settings.js';
import { type Latency, measureHandler } from './handler.js';
import type { BenchSection, BenchTable } from './section.js';

/**
 * The `logs` section: the handler's wall latency per request over the embedded queue, and the
 * CloudWatch Logs bytes each request costs as CloudWatch meters them.
 * @module
 */

const ms = (value: number): string => value.toFixed(2);

// Lambda's own lines per invocation at its default system log level (INFO, text format), as AWS
// documents them, with a 36-character request id, our memory size and two-digit durations.
const PLATFORM_LINES = [
  'START RequestId: 3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d Version: $LATEST',
  'END RequestId: 3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  'REPORT RequestId: 3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 88 MB\t',
];

/** CloudWatch Logs' metering overhead per log event, on top of its UTF-8 message. */
export const CLOUDWATCH_EVENT_OVERHEAD_BYTES = 26;

/**
 * CloudWatch Logs bytes per call as billed: each line the function writes is one event of its
 * UTF-8 bytes (line feed excluded) plus 26 bytes.
 *
 * @param latency - what one kind of request wrote
 */
export function cloudWatchBytesPerCall(latency: Latency): number {
  return latency.outputBytes + latency.outputLines * (CLOUDWATCH_EVENT_OVERHEAD_BYTES - 1);
}

/** Lambda's START, END and REPORT lines per invocation, billed like the function's own lines. */
export const PLATFORM_BYTES_PER_CALL = PLATFORM_LINES.reduce(
  (sum, line) => sum + Buffer.byteLength(line) + CLOUDWATCH_EVENT_OVERHEAD_BYTES,
  0,
);

/**
 * Bytes of Lambda's own lines per invocation as the construct deploys the functions: none at its
 * default system log level, WARN, which drops START, END and REPORT.
 */
export const DEPLOYED_PLATFORM_BYTES_PER_CALL =
  DEFAULT_SYSTEM_LOG_LEVEL === SystemLogLevel.WARN ? 0 : PLATFORM_BYTES_PER_CALL;

/** Wall latency per request over the embedded queue, and the CloudWatch Logs bytes it costs. */
export const logsSection: BenchSection = {
  name: 'logs',
  async run(): Promise<BenchTable> {
    const result = await measureHandler();
    const row = (name: string, latency: Latency, target: string): string[] => [
      name,
      ms(latency.medianMs),
      ms(latency.p99Ms),
      latency.outputLines.toFixed(3),
      cloudWatchBytesPerCall(latency).toFixed(0),
      (cloudWatchBytesPerCall(latency) + PLATFORM_BYTES_PER_CALL).toFixed(0),
      target,
    ];
    return {
      title:
        'Receiver handler per request over the embedded queue: latency and CloudWatch Logs bytes',
      columns: [
        'request',
        'median ms',
        'p99 ms',
        'lines',
        'CloudWatch bytes, function lines',
        'with Lambda START/END/REPORT',
        'target',
      ],
      rows: [
        row('valid signed event_booked -> 200 queued', result.queued, '350'),
        row('signed with another key -> 401', result.unauthorized, ''),
        [
          'bare SendMessage, same client and body (floor)',
          ms(result.sendMessage.medianMs),
          ms(result.sendMessage.p99Ms),
          '',
          '',
          '',
          '',
        ],
      ],
      notes: [
        `${result.samples} requests of each kind after ${result.warmUp} warm-up ones, interleaved; wall time per call. createHandler with the real SQS client against the embedded queue of npm start (local-aws-sqs, same process, so its work is inside the queued and SendMessage figures) and a static key; default log level (INFO).`,
        `CloudWatch bytes as CloudWatch Logs meters them: every line written is one event, billed as its UTF-8 bytes plus ${CLOUDWATCH_EVENT_OVERHEAD_BYTES} bytes. Function lines: the call's decision line, which the construct's metric filters count every per-call metric from (EMF blobs per call: ${result.queued.emfLines.toFixed(3)} queued, ${result.unauthorized.emfLines.toFixed(3)} for a 401).`,
        `Lambda's own START, END and REPORT lines (${PLATFORM_BYTES_PER_CALL} bytes a call with the overhead, sized from AWS's documented format) are billed too at Lambda's default system log level, INFO; the construct deploys both functions with the JSON log format and a system log level of WARN (systemLogLevel), which drops them.`,
        'Rejections are logged at WARN; the metric filters count them, by reason too, in the minute they were answered.',
      ],
    };
  },
};
