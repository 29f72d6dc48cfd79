import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES_LIMIT, SETTINGS } from '../../lambda/contract/settings.js';
import { BodyNotJsonError, signPayload } from '../../lambda/core/index.js';
import type { DeliverySummary } from '../../local/inspector/delivery.js';
import type { LocalReceiver } from '../../local/local-receiver.js';
import { bookingPayload, signRawBody } from '../support/booking.js';
import { captureOutput } from '../support/capture-output.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import { LOG_INJECTIONS, nestedArrays } from '../support/hostile-input.js';
import { KeptAliveConnection, type RawAnswer } from '../support/kept-alive-connection.js';
import { type FailureSource, startLocalReceiverInProcess } from '../support/local-receiver.js';
import { propertyRuns } from '../support/property-runs.js';
import { makeScratchDir } from '../support/scratch-dir.js';

// Issue 20: no request can break the local server or its connections. Random and hostile
// requests go over real sockets, kept alive, one after the other and pipelined, to the receiver
// `npm start` runs (in process, to watch its failure hooks); after each case: every answer has
// a documented status and a JSON body, a connection is closed only after an answer that says so,
// every call to a webhook path is listed by the inspector, nothing is reported as a handler (or
// inspector) failure or logged at ERROR, and the queue holds exactly the bookings answered 200.

const RUNS = propertyRuns('the local server over real sockets', 25);
const KEY = 'local-server-property-key-4f0c9a';
/** The receiver's default MAX_BODY_BYTES (what `npm start` runs with). */
const MAX_BODY_BYTES = SETTINGS.maxBodyBytes.default;
/** Node's default limit on the request line and headers together. */
const MAX_HEADER_BYTES = 16 * 1024;

/** Every status the local server documents (docs/configuration.md, "the local endpoint answers"). */
const DOCUMENTED_STATUSES = new Set([200, 400, 401, 403, 404, 405, 413, 431]);

/** One request as bytes, and what the test knows about it. */
interface FuzzRequest {
  /** What kind of request, for failure messages. */
  readonly label: string;
  readonly method: string;
  readonly target: string;
  readonly bytes: Buffer;
  /** A request to a webhook path the server can parse: the inspector must list it. */
  readonly webhookCall: boolean;
  /** A booking's id: queued once if answered 200 queued, else not at all. */
  readonly bookingId?: string;
  /** Sent as the service sends it: must be answered 200 queued. */
  readonly genuine: boolean;
}

/** A case: groups of requests, each group written at once (pipelined) on kept-alive connections. */
interface FuzzCase {
  readonly groups: readonly (readonly FuzzRequest[])[];
  /** Group indexes after which the client closes its connection half-way through a request. */
  readonly earlyClose?: { readonly request: FuzzRequest; readonly cut: number };
}

let nextBookingId = 900_000_000;
const now = (): number => Math.floor(Date.now() / 1000);

/** The body of a request: the bytes and how the sender signed them. */
interface FuzzBody {
  readonly label: string;
  readonly bytes: Buffer;
  /** A genuine booking's id. */
  readonly bookingId?: string;
}

const booking = fc.boolean().map((pretty): FuzzBody => {
  const id = String(nextBookingId++);
  const payload = bookingPayload({ source: 'fuzz' });
  const value = { ...payload, data: { ...(payload.data as object), id } };
  const text = pretty ? `${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value);
  return { label: pretty ? 'pretty booking' : 'booking', bytes: Buffer.from(text), bookingId: id };
});

const hostileBody: fc.Arbitrary<FuzzBody> = fc.oneof(
  fc.integer({ min: 1, max: 60_000 }).map((depth) => ({
    label: `arrays ${depth} deep`,
    bytes: Buffer.from(nestedArrays(depth)),
  })),
  fc.integer({ min: 1, max: 25_000 }).map((depth) => ({
    label: `objects ${depth} deep`,
    bytes: Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  })),
  fc.integer({ min: 2, max: 40_000 }).map((depth) => ({
    label: `unbalanced arrays ${depth} deep`,
    bytes: Buffer.from(nestedArrays(depth, { balanced: false })),
  })),
  fc.integer({ min: 1, max: 15_000 }).map((width) => ({
    label: `object ${width} keys wide`,
    bytes: Buffer.from(
      `{"event":"event_booked",${Array.from({ length: width }, (_, i) => `"k${i}":${i}`).join(',')}}`,
    ),
  })),
  fc.integer({ min: 1, max: 100_000 }).map((width) => ({
    label: `array ${width} wide`,
    bytes: Buffer.from(`[${'0,'.repeat(width - 1)}0]`),
  })),
  fc.uint8Array({ minLength: 1, maxLength: 2_000 }).map((bytes) => ({
    label: 'random bytes',
    bytes: Buffer.from(bytes),
  })),
  fc.uint8Array({ min: 0x80, max: 0xff, minLength: 1, maxLength: 8 }).map((bytes) => ({
    label: 'invalid UTF-8 in a string',
    bytes: Buffer.concat([
      Buffer.from('{"event":"event_booked","data":{"id":"'),
      bytes,
      Buffer.from('"}}'),
    ]),
  })),
  fc
    .constantFrom('', ' ', '0', '{}', '[]', 'null', '"x"', '{"event":1}', '\uFEFF{}')
    .map((text) => ({ label: `tiny ${JSON.stringify(text)}`, bytes: Buffer.from(text) })),
  fc.constantFrom(...LOG_INJECTIONS).map((text) => ({
    label: 'log injection',
    bytes: Buffer.from(JSON.stringify({ event: text, data: { id: text } })),
  })),
  fc.integer({ min: MAX_BODY_BYTES - 64, max: MAX_BODY_BYTES_LIMIT + 4_096 }).map((size) => ({
    label: `${size} bytes`,
    bytes: Buffer.from(`{"event":"event_booked","pad":"${'a'.repeat(Math.max(0, size - 35))}"}`),
  })),
);

/** How a body is signed: the right key now, stale, another key, no header, a broken one, twice. */
const signing = fc.constantFrom(
  'now',
  'stale',
  'other-key',
  'none',
  'malformed',
  'twice',
  'obs-text',
);

function signatureHeaders(
  how: string,
  body: Buffer,
): ReadonlyArray<readonly [string, string | Buffer]> {
  const at = now();
  switch (how) {
    case 'now':
      return [['Service-Signature', sign(body, KEY, at)]];
    case 'stale':
      return [['Service-Signature', sign(body, KEY, at - 3_600)]];
    case 'other-key':
      return [['Service-Signature', sign(body, 'not-the-key', at)]];
    case 'none':
      return [];
    case 'malformed':
      return [['Service-Signature', `t=${at},signature=zz`]];
    case 'twice':
      return [
        ['Service-Signature', sign(body, KEY, at)],
        ['Service-Signature', sign(body, 'not-the-key', at)],
      ];
    default:
      return [['Service-Signature', Buffer.from([0x74, 0x3d, 0xff, 0xfe, 0x80])]];
  }
}

/** As the service signs a JSON body (its compact form); any other body over its exact bytes. */
function sign(body: Buffer, key: string, at: number): string {
  try {
    return signPayload(body, key, at);
  } catch (error) {
    if (!(error instanceof BodyNotJsonError)) throw error;
    return signRawBody(body, key, at);
  }
}

/** Extra headers: none, repeated, many, one oversized, odd bytes, a foreign Host or Origin. */
const extraHeaders: fc.Arbitrary<ReadonlyArray<readonly [string, string | Buffer]>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant([]) },
  fc.constant([
    ['Content-Type', 'application/json'],
    ['Content-Type', 'text/plain'],
  ] as const),
  fc
    .integer({ min: 1, max: 200 })
    .map((count) =>
      Array.from({ length: count }, (_, i) => [`x-fuzz-${i}`, 'v'.repeat(i)] as const),
    ),
  fc.integer({ min: 100, max: 40_000 }).map((size) => [['x-oversized', 'o'.repeat(size)] as const]),
  fc.constant([['x-odd', Buffer.from([0x80, 0xff, 0x20, 0x7e])]] as const),
  fc.constant([['Expect', '100-continue']] as const),
  fc.constant([['Origin', 'http://evil.example']] as const),
  fc.constant([['Connection', 'close']] as const),
);

const methods = fc.oneof(
  { weight: 8, arbitrary: fc.constant('POST') },
  fc.constantFrom(
    'GET',
    'HEAD',
    'PUT',
    'DELETE',
    'PATCH',
    'OPTIONS',
    'TRACE',
    'PROPFIND',
    'M-SEARCH',
    'post',
    'FOO',
  ),
);

const webhookTargets = fc.constantFrom('/webhook', '/webhook?x=1&y=%ZZ', '/webhook?');
const otherTargets = fc.oneof(
  fc.constantFrom(
    '/',
    '/nope',
    '/webhook/',
    '/webhook/eu',
    '/WEBHOOK',
    '//webhook',
    '/webhook/../webhook',
    '/%00',
    '/webhook%ZZ',
    '*',
    'http://127.0.0.1/webhook',
    'example.com:443',
    '/_inspector/api/deliveries/nope',
    '/_inspector/api/deliveries/nope/replay',
    '/_inspector/api/deliveries',
    '/_inspector/%ZZ',
    '/web hook',
  ),
  fc.integer({ min: 1, max: 20_000 }).map((length) => `/${'a'.repeat(length)}`),
);

/** Frames a request: `Content-Length`, chunked, or (for a body-less one) neither. */
function encode(
  method: string,
  target: string,
  version: string,
  headers: ReadonlyArray<readonly [string, string | Buffer]>,
  body: Buffer,
  chunked: boolean,
  host: string,
): Buffer {
  const framing: Array<readonly [string, string]> = chunked
    ? [['Transfer-Encoding', 'chunked']]
    : [['Content-Length', String(body.byteLength)]];
  const lines = [
    Buffer.from(`${method} ${target} HTTP/${version}\r\n`),
    ...[['Host', host] as const, ...framing, ...headers].map(([name, value]) =>
      Buffer.concat([Buffer.from(`${name}: `), Buffer.from(value), Buffer.from('\r\n')]),
    ),
    Buffer.from('\r\n'),
  ];
  if (!chunked) return Buffer.concat([...lines, body]);
  const size = Math.max(1, Math.ceil(body.byteLength / 3));
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.byteLength; at += size) {
    const chunk = body.subarray(at, at + size);
    chunks.push(Buffer.from(`${chunk.byteLength.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  }
  return Buffer.concat([...lines, ...chunks, Buffer.from('0\r\n\r\n')]);
}

/** Stands for the `Host` of the connection a request goes on, filled in by {@link withHost}. */
const HOST = 'host.invalid';

/** Methods Node's parser knows; any other is refused before a route sees it. */
const KNOWN_METHODS = new Set([
  'POST',
  'GET',
  'HEAD',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'M-SEARCH',
]);

/** A genuine booking, signed with the right key and sent as the service sends it. */
function genuineRequest(body: FuzzBody): FuzzRequest {
  const target = '/webhook';
  const headers = [
    ['Content-Type', 'application/json'] as const,
    ...signatureHeaders('now', body.bytes),
  ];
  return {
    label: body.label,
    method: 'POST',
    target,
    bytes: encode('POST', target, '1.1', headers, body.bytes, false, HOST),
    webhookCall: true,
    genuine: true,
    ...(body.bookingId === undefined ? {} : { bookingId: body.bookingId }),
  };
}

/** Anything: any method, target, body, signature, headers and framing. */
const hostileRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    body: fc.oneof(booking, hostileBody),
    signing,
    method: methods,
    target: fc.oneof(webhookTargets, otherTargets),
    headers: extraHeaders,
    chunked: fc.boolean(),
    http10: fc.nat(9).map((n) => n === 0),
  })
  .map((parts): FuzzRequest => {
    const { method, target, body } = parts;
    const headers = [...signatureHeaders(parts.signing, body.bytes), ...parts.headers];
    const chunked = parts.chunked && !parts.http10;
    const version = parts.http10 ? '1.0' : '1.1';
    const bytes = encode(method, target, version, headers, body.bytes, chunked, HOST);
    // A request Node can parse, to a webhook path, is a call: the inspector must list it.
    const webhookCall =
      (target === '/webhook' || target.startsWith('/webhook?')) &&
      KNOWN_METHODS.has(method) &&
      bytes.indexOf('\r\n\r\n') < MAX_HEADER_BYTES - 1_024;
    const extras = parts.headers.map(([name]) => name).join('+');
    return {
      label: `${method} ${target.slice(0, 40)} HTTP/${version}: ${body.label}, signed ${parts.signing}${chunked ? ', chunked' : ''}${extras ? `, with ${extras}` : ''}`,
      method,
      target,
      bytes,
      webhookCall,
      genuine: false,
      ...(body.bookingId === undefined ? {} : { bookingId: body.bookingId }),
    };
  });

/** Requests print as their labels in a counterexample, not as their bytes. */
const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .oneof(booking.map(genuineRequest), hostileRequest)
  .map((request) =>
    Object.assign(request, { [fc.toStringMethod]: () => JSON.stringify(request.label) }),
  );

const fuzzCase: fc.Arbitrary<FuzzCase> = fc.record(
  {
    groups: fc.array(fc.array(fuzzRequest, { minLength: 1, maxLength: 4 }), {
      minLength: 1,
      maxLength: 4,
    }),
    earlyClose: fc.record({ request: fuzzRequest, cut: fc.double({ min: 0.01, max: 0.99 }) }),
  },
  { requiredKeys: ['groups'] },
);

/** What one case saw. */
interface Seen {
  readonly request: FuzzRequest;
  readonly answer: RawAnswer;
}

describe('The local server over real sockets (property)', () => {
  let receiver: LocalReceiver;
  let scratch: string;
  const failures: Array<{ source: FailureSource; error: unknown }> = [];
  let requests = 0;

  beforeAll(async () => {
    scratch = await makeScratchDir('local-server-property');
    await mkdir(scratch, { recursive: true });
    receiver = await startLocalReceiverInProcess(KEY, scratch, {}, (source, error) => {
      failures.push({ source, error });
    });
  });

  afterAll(async () => {
    await receiver?.close();
    await rm(join(scratch), { recursive: true, force: true });
  });

  /** Sends one case; resolves with every answer, in order. */
  async function play(fuzz: FuzzCase): Promise<Seen[]> {
    const seen: Seen[] = [];
    let connection = await KeptAliveConnection.open(receiver.webhook.url);
    try {
      for (const group of fuzz.groups) {
        const bytes = group.map((request) => withHost(request.bytes, connection.host));
        connection.write(Buffer.concat(bytes));
        requests += group.length;
        for (const request of group) {
          const answer = await within(
            ANSWER_WAIT_MS,
            connection.readAnswer({ head: request.method === 'HEAD' }),
            `no answer, and the connection still open, ${ANSWER_WAIT_MS} ms after ${request.label}`,
          );
          if (answer === undefined) {
            // Closed: allowed only right after an answer that said it would close.
            const last = seen.at(-1);
            expect(
              last !== undefined && group.indexOf(request) > 0 && saysClose(last.answer),
              `the connection closed without an answer to ${request.label}`,
            ).toBe(true);
            break;
          }
          seen.push({ request, answer });
          if (saysClose(answer)) {
            expect(
              await connection.closedWithin(2_000),
              `the server kept the connection open after "connection: close" (${request.label})`,
            ).toBe(true);
            break;
          }
        }
        if (connection.closed) {
          connection = await KeptAliveConnection.open(receiver.webhook.url);
        }
      }
      if (fuzz.earlyClose !== undefined) {
        const { request, cut } = fuzz.earlyClose;
        const bytes = withHost(request.bytes, connection.host);
        connection.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.byteLength * cut))));
        requests += 1;
        connection.close();
        connection = await KeptAliveConnection.open(receiver.webhook.url);
      }
      // The connection still works: a genuine booking on it is queued.
      const probe = genuineRequest(fc.sample(booking, 1)[0] as FuzzBody);
      connection.write(withHost(probe.bytes, connection.host));
      requests += 1;
      const answer = await within(
        ANSWER_WAIT_MS,
        connection.readAnswer(),
        'no answer to the booking sent after the case',
      );
      expect(answer, 'the probe after the case got no answer').toBeDefined();
      if (answer !== undefined) seen.push({ request: probe, answer });
    } finally {
      connection.close();
    }
    return seen;
  }

  it(
    'answers every request with a documented status, keeps connections usable, lists every webhook call, fails nothing and queues each 200 once',
    async () => {
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(fuzzCase, async (fuzz) => {
          // Each case on its own, also when fast-check replays one to shrink it.
          failures.length = 0;
          await receiveAndDeleteAll(receiver.queues.queueUrl);
          const output = captureOutput();
          let seen: Seen[];
          try {
            seen = await play(fuzz);
          } finally {
            output.restore();
          }

          // Documented statuses, JSON bodies.
          for (const { request, answer } of seen) {
            expect(
              DOCUMENTED_STATUSES.has(answer.status),
              `${answer.status} for ${request.label}`,
            ).toBe(true);
            if (request.method !== 'HEAD') {
              expect(answer.headers['content-type'], request.label).toMatch(/^application\/json/);
              expect(() => JSON.parse(answer.body), request.label).not.toThrow();
            }
            if (request.genuine) {
              expect([answer.status, answer.body], request.label).toEqual([
                200,
                '{"status":"queued"}',
              ]);
            }
          }

          // Every call to a webhook path is listed by the inspector.
          const calls = seen.filter(({ request }) => request.webhookCall);
          const ids = calls.map(({ answer }) => answer.headers['x-amzn-requestid']);
          for (const [index, id] of ids.entries()) {
            expect(id, `no request id for ${calls[index]?.request.label}`).toBeDefined();
          }
          const listed = await listedIds(receiver);
          for (const [index, id] of ids.entries()) {
            expect(listed.has(id ?? ''), `not listed: ${calls[index]?.request.label}`).toBe(true);
          }

          // Nothing failed or logged an error.
          expect(failures).toEqual([]);
          expect(
            output.logs().filter(({ level }) => level === 'ERROR' || level === 'CRITICAL'),
          ).toEqual([]);

          // Exactly the bookings answered 200 are queued, once each.
          const answered = seen
            .filter(({ answer }) => answer.status === 200 && answer.body === '{"status":"queued"}')
            .map(({ request }) => request.bookingId ?? 'not a booking')
            .sort();
          const queued = (await receiveAndDeleteAll(receiver.queues.queueUrl))
            .map((message) => bookingIdOf(message.Body ?? ''))
            .sort();
          expect(queued).toEqual(answered);
        }),
        { numRuns: RUNS.numRuns, seed: RUNS.seed },
      );
      process.stderr.write(
        `local server property: ${requests} requests in ${RUNS.numRuns} cases, seed ${RUNS.seed}, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    },
    RUNS.timeout,
  );
});

/** How long an answer may take: far more than any should, far less than a test timeout. */
const ANSWER_WAIT_MS = 15_000;

/** `promise`, or a failure saying `what` when it takes longer than `ms`. */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The id of a booking this test sent, or `not a booking` for another queued body. */
function bookingIdOf(body: string): string {
  const id = (JSON.parse(body) as { data?: { id?: unknown } }).data?.id;
  return typeof id === 'string' && /^9\d{8}$/.test(id) ? id : 'not a booking';
}

/** Whether an answer says the server closes the connection after it. */
function saysClose(answer: RawAnswer): boolean {
  return (answer.headers.connection ?? '').toLowerCase().includes('close');
}

/** The request with the `Host` of this connection. */
function withHost(bytes: Buffer, value: string): Buffer {
  const end = bytes.indexOf('\r\n\r\n');
  const head = bytes.subarray(0, end).toString('latin1');
  const replaced = head.replace(/\r\nHost: [^\r]*/, `\r\nHost: ${value}`);
  return Buffer.concat([Buffer.from(replaced, 'latin1'), bytes.subarray(end)]);
}

/** The ids the inspector lists now. */
async function listedIds(receiver: LocalReceiver): Promise<Set<string>> {
  const response = await fetch(`${receiver.inspectorUrl}/api/deliveries`);
  const { deliveries } = (await response.json()) as { deliveries: DeliverySummary[] };
  return new Set(deliveries.map(({ id }) => id));
}
