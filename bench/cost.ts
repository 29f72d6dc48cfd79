import { App } from 'aws-cdk-lib';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import {
  ARCHIVE_LAYOUT,
  ARCHIVE_LIMITS,
  DEFAULT_ARCHIVE_DAYS,
} from '../lambda/contract/archive-layout.js';
import { webhookPath } from '../lambda/contract/endpoints.js';
import { CONSUMER_BATCH_SIZE } from '../lambda/contract/queue-settings.js';
import { SETTINGS } from '../lambda/contract/settings.js';
import { signPayload } from '../lambda/core/index.js';
import { SIGNATURE_HEADER_KEY } from '../lambda/core/signature-header.js';
import { archiveRecord } from '../lambda/receiver/archive-record.js';
import { buildMessage } from '../lambda/receiver/decision/sink-message.js';
import { ACCESS_LOG_FORMAT } from '../lib/ingress/ingress.js';
import { RECEIVER_MEMORY_MB } from '../lib/receiver-settings.js';
import { ReceiverStack } from '../lib/receiver-stack.js';
import {
  archivePerMillionLine,
  estimateArchiveCost,
  estimatePutObjectPerCallCost,
} from './archive-cost.js';
import { type CostBar, renderCostChart } from './cost-chart.js';
import type { CostLine } from './cost-line.js';
import {
  type CostInputs,
  costPerMillionLine,
  costPerMillionWithIdempotencyLine,
  estimateBilledDurationMs,
  estimateCostPerMillion,
  IDEMPOTENCY_WRITE_REQUESTS,
  idempotencyLine,
  idempotencyPerMillionLine,
  ONE_VCPU_MEMORY_MB,
  type PricedIngress,
} from './cost-model.js';
import { type HandlerMeasurement, measureHandler } from './handler.js';
import {
  CLOUDWATCH_EVENT_OVERHEAD_BYTES,
  cloudWatchBytesPerCall,
  DEPLOYED_PLATFORM_BYTES_PER_CALL,
  PLATFORM_BYTES_PER_CALL,
} from './logs.js';
import { estimateEndpointMonthlyCost, estimateFixedMonthlyCost } from './monthly-cost.js';
import { PRICE_SOURCES, PRICES } from './prices.js';
import type { BenchSection, BenchTable } from './section.js';

/**
 * Assumed SendMessage round trip from Lambda to SQS in the same region, in ms. Not measured here
 * (no AWS account); generous on purpose, so the duration figure errs on the expensive side.
 */
export const SQS_ROUND_TRIP_MS = 20;

/**
 * Execution environments assumed warm all month. A million webhooks a month is 0.4 per second on
 * average, which one environment serves; the second stands for bursts and Lambda replacing
 * environments, each new one loading the keys again.
 */
const WARM_ENVIRONMENTS = 2;

/** Assumed billed time of one consumer batch (parse and validate small JSON messages); not measured. */
const CONSUMER_BILLED_MS_PER_BATCH = 100;

/**
 * Assumed round trip of one DynamoDB write from Lambda in the same region, in ms; not measured.
 * The consumer processes a standard queue's batch in parallel (Powertools Batch's default), so a
 * batch waits for one record's writes in sequence.
 */
const DYNAMODB_ROUND_TRIP_MS = 10;
const CONSUMER_IDEMPOTENCY_MS_PER_BATCH =
  IDEMPOTENCY_WRITE_REQUESTS.processed * DYNAMODB_ROUND_TRIP_MS;
const CONSUMER_MEMORY_MB = 256;

/** Secrets Manager calls per key load: DescribeSecret, then GetSecretValue (steady state). */
export const SECRET_CALLS_PER_REFRESH = 2;

const INGRESSES: readonly PricedIngress[] = ['http-api', 'rest-api', 'function-url'];

/**
 * Assumed round trip of one Firehose PutRecord inside the region, in ms (not measured here; the
 * same assumption as {@link SQS_ROUND_TRIP_MS}): the receiver waits for it before answering.
 */
const FIREHOSE_ROUND_TRIP_MS = 20;

/** Size of the delivery the archive line is priced for: "1 KB deliveries". */
const ARCHIVED_BODY_BYTES = 1024;

/**
 * Bytes of the archive record the receiver writes for a queued call with a body of `bodyBytes`
 * (a booking padded with trailing spaces), with the headers a PHP sender sends and the front
 * door's request id (top level and `request_id` attribute): built by the receiver's own
 * `archiveRecord`, not estimated.
 */
export function archiveRecordBytes(bodyBytes: number): number {
  const payload = buildBookingPayload({ random: () => 0.5, now: new Date(Date.UTC(2026, 10, 27)) });
  const body = payload.padEnd(bodyBytes, ' ');
  const parsed = JSON.parse(body) as { event: string; event_at: string; data: { id: string } };
  const timestamp = 1_795_000_000;
  const requestId = ACCESS_LOG_SAMPLE['$context.requestId'];
  const message = buildMessage(
    {
      text: body,
      event: parsed.event,
      eventAt: parsed.event_at,
      source: undefined,
      dataId: parsed.data.id,
    },
    timestamp,
    JSON.stringify(parsed),
    undefined,
    requestId,
  );
  const record = archiveRecord(
    {
      method: 'POST',
      headers: {
        [SIGNATURE_HEADER_KEY]: signPayload(body, 'bench-key', timestamp),
        'content-type': 'application/json',
        'user-agent': 'GuzzleHttp/7',
      },
      body,
    },
    { kind: 'queued', status: 200, details: { dedupKey: message.deduplicationId } },
    {
      receivedAtMs: timestamp * 1000,
      apiRequestId: requestId,
      sourceIp: '203.0.113.10',
      message,
    },
  );
  return Buffer.byteLength(`${JSON.stringify(record)}\n`);
}

/** Values API Gateway puts in place of the access log variables, typical of one webhook call. */
const ACCESS_LOG_SAMPLE: Record<string, string> = {
  '$context.requestId': '8f5d3c0e-2b1a-4c7d-9e6f-0a1b2c3d4e5f',
  '$context.identity.sourceIp': '203.0.113.17',
  '$context.requestTime': '24/Nov/2026:20:10:00 +0000',
  '$context.httpMethod': 'POST',
  '$context.resourcePath': webhookPath(),
  '$context.routeKey': `POST ${webhookPath()}`,
  '$context.status': '200',
  '$context.responseLength': '17',
  '$context.responseLatency': '25',
  '$context.integrationStatus': '200',
  '$context.integrationErrorMessage': '-',
  '$context.error.message': '-',
  '$context.error.messageString': '-',
};

/**
 * Bytes of one access log line as CloudWatch Logs meters it: the construct's own format with the
 * variables filled in, one event, billed like the receiver's lines (its bytes plus the event's).
 */
function accessLogBytes(format: string): number {
  const line = format.replace(/\$context\.[A-Za-z.]+/g, (name) => ACCESS_LOG_SAMPLE[name] ?? '-');
  return Buffer.byteLength(line) + CLOUDWATCH_EVENT_OVERHEAD_BYTES;
}

/** Bytes of a front door's access log line per call: the construct's format filled in; none for a function URL. */
export function accessLogBytesPerCall(ingress: PricedIngress): number {
  return {
    'http-api': () => accessLogBytes(ACCESS_LOG_FORMAT.toString()),
    'rest-api': () => accessLogBytes(ACCESS_LOG_FORMAT.toString()),
    'function-url': () => 0,
  }[ingress]();
}

/**
 * Billed duration of one warm queued call at the receiver's memory: the measured in-process p99
 * stretched by the vCPU share, plus the assumed SendMessage round trip.
 */
export function queuedCallBilledMs(handler: HandlerMeasurement): number {
  return estimateBilledDurationMs({
    measuredMs: handler.queued.p99Ms,
    memoryMb: RECEIVER_MEMORY_MB,
    sqsRoundTripMs: SQS_ROUND_TRIP_MS,
  });
}

/**
 * The cost model's inputs for queued calls through `ingress`, from the handler measured in this
 * run; with `idempotency`, the consumer's DynamoDB writes of the default stack.
 */
export function queuedCallCostInputs(
  ingress: PricedIngress,
  handler: HandlerMeasurement,
  { idempotency }: { readonly idempotency: boolean },
): CostInputs {
  return {
    ingress,
    receiverBilledMs: queuedCallBilledMs(handler),
    receiverMemoryMb: RECEIVER_MEMORY_MB,
    queue: 'standard',
    consumerBatchSize: CONSUMER_BATCH_SIZE,
    consumerBilledMsPerBatch:
      CONSUMER_BILLED_MS_PER_BATCH + (idempotency ? CONSUMER_IDEMPOTENCY_MS_PER_BATCH : 0),
    consumerMemoryMb: CONSUMER_MEMORY_MB,
    warmEnvironments: WARM_ENVIRONMENTS,
    secretCacheSeconds: SETTINGS.secretCacheSeconds.default,
    secretCallsPerRefresh: SECRET_CALLS_PER_REFRESH,
    daysPerMonth: 30,
    // Measured in this run, as CloudWatch Logs meters them (the logs section's figure).
    receiverLogBytesPerCall: cloudWatchBytesPerCall(handler.queued),
    platformLogBytesPerInvocation: DEPLOYED_PLATFORM_BYTES_PER_CALL,
    accessLogBytesPerCall: accessLogBytesPerCall(ingress),
    idempotencyWritesPerRecord: idempotency ? IDEMPOTENCY_WRITE_REQUESTS.processed : 0,
  };
}

/**
 * The number of alarms the default stack (`ReceiverStack`: consumer and archive on) creates with
 * `ingress`, read from the construct itself: a function URL has no API Gateway throttle alarm.
 */
function alarmCount(ingress: PricedIngress): number {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const { receiver } = new ReceiverStack(app, 'CostModel', { ingress });
  // Flattened: the silence alarms are a list (one per endpoint).
  return Object.values(receiver.alarms)
    .flat()
    .filter((alarm) => alarm !== undefined).length;
}

const usd = (value: number): string => `$${value.toFixed(2)}`;

/** Where the cost section draws its chart, which the README shows. */
const COST_CHART_FILE = 'docs/cost-chart.svg';

/** AWS cost of a million webhooks through each front door, from the measured handler latency. */
export const costSection: BenchSection = {
  name: 'cost',
  async run(): Promise<BenchTable> {
    const handler = await measureHandler();
    const receiverBilledMs = queuedCallBilledMs(handler);
    const accessLog = (ingress: PricedIngress): number => accessLogBytesPerCall(ingress);
    const receiverLogBytes = cloudWatchBytesPerCall(handler.queued);
    // The per-ingress lines price the path issue 15 names (front door to consumer); the
    // idempotency table is its own line and row below, so either figure can be read alone.
    const inputs = (ingress: PricedIngress): CostInputs =>
      queuedCallCostInputs(ingress, handler, { idempotency: false });
    const withIdempotency = (ingress: PricedIngress): CostInputs =>
      queuedCallCostInputs(ingress, handler, { idempotency: true });
    const estimates = INGRESSES.map((ingress) => estimateCostPerMillion(inputs(ingress)));
    const defaultStack = INGRESSES.map((ingress) =>
      estimateCostPerMillion(withIdempotency(ingress)),
    );
    const fifo = estimateCostPerMillion({ ...inputs('http-api'), queue: 'fifo' });
    const oneByOne = estimateCostPerMillion({ ...inputs('http-api'), consumerBatchSize: 1 });
    const alarms = INGRESSES.map(alarmCount);
    const fixed = alarms.map((count) => estimateFixedMonthlyCost({ secrets: 1, alarms: count }));
    const perEndpoint = estimateEndpointMonthlyCost(inputs('http-api'));
    const idempotency = idempotencyLine(1_000_000, IDEMPOTENCY_WRITE_REQUESTS.processed);
    const recordBytes = archiveRecordBytes(ARCHIVED_BODY_BYTES);
    const archive = estimateArchiveCost(
      {
        recordBytes,
        archiveDays: DEFAULT_ARCHIVE_DAYS,
        daysPerMonth: 30,
        bufferBytes: ARCHIVE_LAYOUT.bufferMegabytes * 1024 * 1024,
      },
      1_000_000,
    );
    // The receiver waits for the put before answering: that much more billed duration per call.
    const archiveWait =
      1_000_000 *
      (FIREHOSE_ROUND_TRIP_MS / 1000) *
      (RECEIVER_MEMORY_MB / 1024) *
      PRICES.lambdaArm64PerGbSecond;
    const putObjectPerCall = estimatePutObjectPerCallCost(1_000_000);
    const copies = idempotencyLine(1_000_000, IDEMPOTENCY_WRITE_REQUESTS.suppressedCopy);
    const summary = [
      ...INGRESSES.map((ingress, index) =>
        costPerMillionLine(ingress, estimates[index]?.totalUsd ?? Number.NaN),
      ),
      ...INGRESSES.map((ingress, index) =>
        costPerMillionWithIdempotencyLine(ingress, defaultStack[index]?.totalUsd ?? Number.NaN),
      ),
      idempotencyPerMillionLine(idempotency.usd),
      archivePerMillionLine(archive.totalUsd),
    ];
    process.stdout.write(`${summary.join('\n')}\n`);
    // The archive as one component of the chart: Firehose, S3 and the receiver's wait for the put.
    const archiveUsd = archive.totalUsd + archiveWait;
    const archiveLine: CostLine = {
      component: "Archive (Firehose, S3, the receiver's wait)",
      quantity: 1_000_000,
      unit: 'call',
      unitPriceUsd: archiveUsd / 1_000_000,
      listPrice: '',
      usd: archiveUsd,
    };
    const bars: CostBar[] = INGRESSES.flatMap((ingress, index) => {
      const withIdempotency = defaultStack[index] ?? { lines: [], totalUsd: 0 };
      return [
        { ingress, variant: '', estimate: estimates[index] ?? { lines: [], totalUsd: 0 } },
        { ingress, variant: 'with idempotency', estimate: withIdempotency },
        {
          ingress,
          variant: 'with idempotency and archive',
          estimate: {
            lines: [...withIdempotency.lines, archiveLine],
            totalUsd: withIdempotency.totalUsd + archiveUsd,
          },
        },
      ];
    });
    const components = (estimates[0]?.lines ?? []).map((_, row) => row);
    const chart = renderCostChart(
      `Cost per million webhooks by component (list prices ${PRICES.region}, ${PRICES.date})`,
      bars,
    );
    return {
      files: [{ path: COST_CHART_FILE, text: chart }],
      title: `Cost of 1 million webhooks per front door (list prices ${PRICES.region}, ${PRICES.date})`,
      columns: ['component', 'list price', ...INGRESSES],
      rows: [
        ...components.map((row) => {
          const lines = estimates.map((estimate) => estimate.lines[row]);
          const first = lines[0];
          return [
            row === 0 ? 'Front door calls' : (first?.component ?? ''),
            lines
              .map((line) => line?.listPrice)
              .filter((price, index, all) => all.indexOf(price) === index)
              .join(' / '),
            ...lines.map((line) => usd(line?.usd ?? Number.NaN)),
          ];
        }),
        ['Total per million calls', '', ...estimates.map((estimate) => usd(estimate.totalUsd))],
        [
          'Total with the idempotency table (the default stack)',
          '',
          ...defaultStack.map((estimate) => usd(estimate.totalUsd)),
        ],
        [
          `Archive (Firehose + S3, ${DEFAULT_ARCHIVE_DAYS} days), + ${FIREHOSE_ROUND_TRIP_MS} ms of receiver duration per call`,
          archive.lines.map((line) => line.listPrice).join(' + '),
          ...INGRESSES.map(() => `${usd(archive.totalUsd)} + ${usd(archiveWait)}`),
        ],
        [
          'Total with idempotency table and archive (ReceiverStack defaults)',
          '',
          ...defaultStack.map((estimate) =>
            usd(estimate.totalUsd + archive.totalUsd + archiveWait),
          ),
        ],
        [
          `Fixed per month (ReceiverStack defaults): 1 secret + its alarms (${alarms.join(' / ')})`,
          fixed[0]?.lines.map((line) => line.listPrice).join(' + ') ?? '',
          ...fixed.map((estimate) => usd(estimate.totalUsd)),
        ],
        [
          'Per named endpoint per month (-c endpoints=…): its secret, key ring reloads, silence alarm',
          perEndpoint.lines.map((line) => line.listPrice).join(' + '),
          ...INGRESSES.map(() => usd(perEndpoint.totalUsd)),
        ],
      ],
      notes: [
        ...summary,
        `Receiver duration: ${receiverBilledMs} ms billed per call at ${RECEIVER_MEMORY_MB} MB = the measured in-process p99 of a queued call (${handler.queued.p99Ms.toFixed(2)} ms, handler section) x ${ONE_VCPU_MEMORY_MB}/${RECEIVER_MEMORY_MB} (the vCPU share of ${RECEIVER_MEMORY_MB} MB), + ${SQS_ROUND_TRIP_MS} ms assumed for the SendMessage round trip, rounded up to 1 ms. Conservative: p99 rather than the median (${handler.queued.medianMs.toFixed(2)} ms), and the whole time scaled, though only CPU work slows down.`,
        `CloudWatch Logs per call: ${receiverLogBytes.toFixed(0)} bytes of receiver log and EMF per queued call, measured in this run as CloudWatch meters them (each line's bytes plus ${CLOUDWATCH_EVENT_OVERHEAD_BYTES}; see the logs section); ${DEPLOYED_PLATFORM_BYTES_PER_CALL} bytes of Lambda's own lines per invocation, as the construct deploys both functions with the JSON log format and system log level WARN (at Lambda's default, INFO, START/END/REPORT would add ${PLATFORM_BYTES_PER_CALL} bytes per invocation); and the access log line rendered from the construct's own format, metered the same way: ${accessLog('http-api')} bytes (HTTP API), ${accessLog('rest-api')} bytes (REST API), none for a function URL. The consumer's own log lines are not measured and not included.`,
        `SQS: the receiver's SendMessage per call, and per consumer batch of ${CONSUMER_BATCH_SIZE} (the construct's consumerBatchSize) one ReceiveMessage and one DeleteMessageBatch. At a steady 0.4 calls per second the 1 s batching window fills batches of about 1: priced with batches of 1, http-api costs ${usd(oneByOne.totalUsd)}. The event source mapping's empty long polls while idle cost the same whatever the traffic and are not included. With a FIFO queue, http-api costs ${usd(fifo.totalUsd)}.`,
        `Consumer: ${CONSUMER_BILLED_MS_PER_BATCH + CONSUMER_IDEMPOTENCY_MS_PER_BATCH} ms billed per batch at ${CONSUMER_MEMORY_MB} MB (an assumption, not measured: ${CONSUMER_BILLED_MS_PER_BATCH} ms of work, + ${IDEMPOTENCY_WRITE_REQUESTS.processed} DynamoDB writes of ${DYNAMODB_ROUND_TRIP_MS} ms each, the records of a batch in parallel).`,
        `DynamoDB (the default stack's idempotency table, on-demand): ${IDEMPOTENCY_WRITE_REQUESTS.processed} write requests per processed record (conditional PutItem, UpdateItem) = ${usd(idempotency.usd)} per million records, in the second total above (not in the first, nor in the cost per million lines); each suppressed copy adds ${IDEMPOTENCY_WRITE_REQUESTS.suppressedCopy} (the conditional PutItem that fails) = ${usd(copies.usd)} per million copies. Counted against an embedded DynamoDB in test/lambda/consumer/handler.e2e.test.ts; each record is under 1 KB, one write request unit, and no read follows. Not included: the table's storage and point-in-time recovery (a week of records under 1 KB each). Without the table (-c idempotency=false) there is no DynamoDB line and each batch is ${CONSUMER_IDEMPOTENCY_MS_PER_BATCH} ms shorter.`,
        `Archive (ReceiverStack's default, -c archive=false turns it off): one record per call of ${recordBytes} bytes for a ${ARCHIVED_BODY_BYTES}-byte delivery (built by the receiver's archiveRecord: body as base64, signature, content type, user agent, source address, request id, verdict, dedup key, message attributes). ${archive.lines.map((line) => `${line.component}: ${line.quantity.toFixed(line.unit === 'request' ? 0 : 3)} ${line.unit} x ${line.listPrice} = ${usd(line.usd)}`).join('; ')}; total ${usd(archive.totalUsd)} per million. The receiver waits for the PutRecord (${FIREHOSE_ROUND_TRIP_MS} ms assumed, as for SendMessage; bounded at ${ARCHIVE_LIMITS.writeBoundMs} ms) = ${usd(archiveWait)} of Lambda duration per million at ${RECEIVER_MEMORY_MB} MB. One S3 PutObject per call instead would cost ${usd(putObjectPerCall)} per million in requests alone. Below 5 MB per 300 s Firehose writes one object per 300 s (8,640 a month, ${usd(estimatePutObjectPerCallCost(8640))}), whatever the traffic. Rejected calls (at most ${ARCHIVE_LIMITS.rejectedPerMinute} a minute per environment, ${ARCHIVE_LIMITS.rejectedBodyBytes / 1024} KiB of body each) are not included.`,
        `Secrets Manager: after caching, each warm environment reloads the keys at most every SECRET_CACHE_SECONDS (${SETTINGS.secretCacheSeconds.default} s) with ${SECRET_CALLS_PER_REFRESH} calls (DescribeSecret + GetSecretValue), assuming ${WARM_ENVIRONMENTS} environments warm all 30 days (an upper bound: an idle environment makes no calls).`,
        `The chart ${COST_CHART_FILE} draws these bills, by component: the bare path, with the idempotency table, and with the table and the archive (ReceiverStack's defaults).`,
        'Not included: free tiers (all would lower the figures), data transfer, X-Ray (tracing is off by default), a WAF web ACL (rest-api with webAclArn). SQS-managed encryption is free.',
        `Prices (${PRICES.region}, read ${PRICES.date}): ${[...new Set(Object.values(PRICE_SOURCES))].join(', ')}.`,
      ],
    };
  },
};
