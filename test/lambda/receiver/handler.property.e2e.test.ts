import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../../lambda/core/sign.js';
import type { ApiGatewayEvent, ApiGatewayResponse } from '../../../lambda/receiver/api-gateway.js';
import {
  API_GATEWAY_FLAVOURS,
  type HttpCall,
  httpApiEvent,
  restApiEvent,
} from '../../support/api-gateway-events.js';
import { BOOKER, signRawBody } from '../../support/booking.js';
import { captureOutput } from '../../support/capture-output.js';
import { LOG_INJECTIONS, nestedArrays } from '../../support/hostile-input.js';
import { useLocalSqs } from '../../support/local-sqs.js';
import { readWrittenLines, withoutSdkNodeVersionWarning } from '../../support/log-lines.js';
import { propertyRuns } from '../../support/property-runs.js';
import { receiverOnNewQueue } from '../../support/receiver-harness.js';
import { fakeSecretVersions } from '../../support/secrets-manager.js';

const NOW = 1_795_000_000;
const HOUR = 3600;
const DAY = 24 * HOUR;
/** The contract's values, set explicitly so the oracle below does not depend on defaults. */
const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 262_144;

/**
 * Every key in play. Configured: AWSCURRENT, AWSPENDING and AWSPREVIOUS (AWSCURRENT is an hour old,
 * inside the default 24 h grace); `revoked` is a version without a label.
 */
const KEYS = {
  current: 'fuzz-key-current-3b9d2f70',
  pending: 'fuzz-key-pending-8e1c07a4',
  previous: 'fuzz-key-previous-5a4f19e2',
  revoked: 'fuzz-key-revoked-c2d870b6',
  unknown: 'fuzz-key-unknown-61ab3e5d',
} as const;
type KeyName = keyof typeof KEYS;
const CONFIGURED_KEYS: ReadonlySet<KeyName> = new Set(['current', 'pending', 'previous']);

const RUNS = propertyRuns('handler over hostile and signed calls', 100);

type Flavour = 'rest' | 'http';
type Spelling = 'plain' | 'pretty' | 'escaped';

/** A call made by someone holding one of {@link KEYS}, with everything that can go wrong varied. */
interface SignedRecipe {
  readonly kind: 'signed';
  readonly flavour: Flavour;
  readonly method: string;
  readonly key: KeyName;
  /** Signing time minus the receiver's clock, seconds. */
  readonly offset: number;
  /** The `event` field; `undefined` leaves it out. */
  readonly event: unknown;
  readonly extra: fc.JsonValue;
  /** Send the payload wrapped in an array. */
  readonly wrapped: boolean;
  /** Spelling the signature is computed over; the receiver also accepts the other slash spelling. */
  readonly signedSpelling: 'plain' | 'escaped';
  readonly sentSpelling: Spelling;
  readonly headerName: string;
  readonly headerForm: 'canonical' | 'spaced' | 'reordered' | 'rotation' | 'upper-hex';
  /** A second spelling of the header name, carrying a forged signature. */
  readonly twinHeaderName: string | undefined;
  readonly transport: 'text' | 'base64' | 'invalid-base64';
  readonly size: 'small' | 'at-limit' | 'over-limit';
  /** Put a byte that is never valid UTF-8 into a string of the payload. */
  readonly invalidUtf8: boolean;
}

/** A call made by anyone: nothing about it is trusted or consistent. */
interface HostileRecipe {
  readonly kind: 'hostile';
  readonly flavour: Flavour;
  readonly method: string;
  /** A `Service-Signature` header (name in any case) that looks right but is not. */
  readonly signature: readonly [string, string] | null;
  readonly headers: readonly (readonly [string, string])[];
  readonly manyHeaders: boolean;
  readonly nullHeaders: boolean;
  readonly body: string | Uint8Array | undefined;
  readonly encoding: 'as-built' | 'base64' | 'invalid-base64';
}

/** What the oracle says must happen to a call. */
type Expected = 'queued' | 'not queued' | 'either';

interface BuiltCall {
  readonly event: ApiGatewayEvent;
  /** The body as the queue must hold it, if it gets there. */
  readonly text: string;
  readonly expected: Expected;
}

const flavour = fc.constantFrom<Flavour>('rest', 'http');
const signatureHeaderName = fc.mixedCase(fc.constant('service-signature'));
const binaryString = (maxLength: number) => fc.string({ unit: 'binary', maxLength });

const signedRecipe: fc.Arbitrary<SignedRecipe> = fc.record({
  kind: fc.constant('signed' as const),
  flavour,
  method: fc.oneof(
    { weight: 6, arbitrary: fc.constant('POST') },
    fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
  ),
  key: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<KeyName>('current', 'pending', 'previous') },
    fc.constantFrom<KeyName>('revoked', 'unknown'),
  ),
  offset: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -TOLERANCE_SECONDS, max: TOLERANCE_SECONDS }) },
    fc.constantFrom(-TOLERANCE_SECONDS - 1, TOLERANCE_SECONDS + 1, -DAY, 365 * DAY),
  ),
  event: fc.oneof(
    { weight: 6, arbitrary: fc.constant('event_booked') },
    fc.constantFrom('event_cancelled', '', 'EVENT_BOOKED', 'event_booked\n', undefined, null, 42),
    binaryString(30),
  ),
  extra: fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 }) },
    // Characters SQS refuses (U+FFFE, U+FFFF), line separators, both slash spellings, a pair.
    fc.constantFrom('\uFFFE', 'x\uFFFFy', '\u2028\u2029', 'a/b\\/c//', '\uD83D\uDE00 \u00e9'),
  ),
  wrapped: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, fc.constant(true)),
  signedSpelling: fc.constantFrom('plain' as const, 'escaped' as const),
  sentSpelling: fc.constantFrom<Spelling>('plain', 'pretty', 'escaped'),
  headerName: fc.oneof(
    { weight: 9, arbitrary: signatureHeaderName },
    fc.constantFrom('x-service-signature', 'service-signatures', 'service_signature', 'signature'),
  ),
  headerForm: fc.constantFrom('canonical', 'spaced', 'reordered', 'rotation', 'upper-hex'),
  twinHeaderName: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, signatureHeaderName),
  transport: fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('text' as const, 'base64' as const) },
    fc.constant('invalid-base64' as const),
  ),
  size: fc.oneof(
    { weight: 12, arbitrary: fc.constant('small' as const) },
    fc.constantFrom('at-limit' as const, 'over-limit' as const),
  ),
  invalidUtf8: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, fc.constant(true)),
});

const signatureShapedValue = fc
  .record({
    t: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: NOW - 400, max: NOW + 400 }).map(String) },
      fc.constantFrom('', '-1', '1e9', '0x6B', '9'.repeat(400), `0${NOW}`, ` ${NOW} `),
    ),
    signatures: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.stringMatching(/^[0-9a-f]{64}$/) },
        fc.stringMatching(/^[0-9a-fA-F]{63,65}$/),
        binaryString(70),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    timestampLast: fc.boolean(),
    separator: fc.constantFrom(',', ', ', ' , ', ',,'),
  })
  .map(({ t, signatures, timestampLast, separator }) => {
    const parts = signatures.map((signature) => `signature=${signature}`);
    if (timestampLast) parts.push(`t=${t}`);
    else parts.unshift(`t=${t}`);
    return parts.join(separator);
  });

const hostileBody: fc.Arbitrary<string | Uint8Array | undefined> = fc.oneof(
  binaryString(300),
  fc.uint8Array({ maxLength: 300 }),
  {
    weight: 3,
    arbitrary: fc
      .jsonValue({ stringUnit: 'binary', maxDepth: 4 })
      .map((value) => JSON.stringify(value)),
  },
  fc
    .record({ depth: fc.integer({ min: 1, max: 100_000 }), balanced: fc.boolean() })
    .map(({ depth, balanced }) => nestedArrays(depth, { balanced })),
  fc.integer({ min: MAX_BODY_BYTES - 2, max: MAX_BODY_BYTES + 2 }).map((n) => '7'.repeat(n)),
  fc.constantFrom(
    ...LOG_INJECTIONS,
    '\uD800',
    '{"event":"\uDC00"}',
    '\uFEFF{"event":"event_booked"}',
    '{"event":"event_booked"}',
    '',
    undefined,
  ),
);

const hostileRecipe: fc.Arbitrary<HostileRecipe> = fc.record({
  kind: fc.constant('hostile' as const),
  flavour,
  method: fc.oneof(
    { weight: 8, arbitrary: fc.constant('POST') },
    fc.constantFrom('GET', 'post', 'PoSt', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', ''),
    binaryString(12),
  ),
  signature: fc.option(fc.tuple(signatureHeaderName, signatureShapedValue), { freq: 4 }),
  headers: fc.array(
    fc.tuple(
      fc.oneof(
        signatureHeaderName,
        fc.constantFrom(
          'content-type',
          '__proto__',
          'constructor',
          'toString',
          '\u017Fervice-signature',
          'service-signature\u0000',
          'Service-Signature ',
          '',
        ),
        binaryString(30),
      ),
      fc.oneof(
        signatureShapedValue,
        binaryString(200),
        fc.constantFrom(...LOG_INJECTIONS),
        fc.integer({ min: 1000, max: 100_000 }).map((n) => `t=${NOW},signature=${'a'.repeat(n)}`),
      ),
    ),
    { maxLength: 4 },
  ),
  manyHeaders: fc.oneof({ weight: 19, arbitrary: fc.constant(false) }, fc.constant(true)),
  nullHeaders: fc.oneof({ weight: 19, arbitrary: fc.constant(false) }, fc.constant(true)),
  body: hostileBody,
  encoding: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('as-built' as const, 'base64' as const) },
    fc.constant('invalid-base64' as const),
  ),
});

/** A byte sequence that stands in a payload string until it is swapped for invalid UTF-8. */
const INVALID_UTF8_PLACEHOLDER = '#BAD#';
const INVALID_UTF8_BYTES = Buffer.from([0x23, 0xff, 0xc0, 0x80, 0x23]);

function bodyBytes(text: string, invalidUtf8: boolean): Buffer {
  const bytes = Buffer.from(text);
  if (!invalidUtf8) return bytes;
  const at = bytes.indexOf(INVALID_UTF8_PLACEHOLDER);
  INVALID_UTF8_BYTES.copy(bytes, at);
  return bytes;
}

function spell(value: unknown, spelling: Spelling): string {
  if (spelling === 'pretty') return JSON.stringify(value, null, 2);
  const plain = JSON.stringify(value);
  // JSON.stringify never writes `\/`, and outside strings JSON has no `/`: this escapes exactly
  // the slashes inside strings, as PHP's json_encode does.
  return spelling === 'escaped' ? plain.replaceAll('/', '\\/') : plain;
}

function signatureHeader(recipe: SignedRecipe, timestamp: number, signedBody: Buffer): string {
  const header = signPayload(signedBody, KEYS[recipe.key], timestamp);
  const signature = header.slice(header.indexOf('signature=') + 'signature='.length);
  const other = '0'.repeat(64);
  switch (recipe.headerForm) {
    case 'canonical':
      return header;
    case 'spaced':
      return ` t=${timestamp} , signature=${signature} `;
    case 'reordered':
      return `signature=${signature},t=${timestamp}`;
    case 'rotation':
      return `t=${timestamp},signature=${other},signature=${signature}`;
    case 'upper-hex':
      return `t=${timestamp},signature=${signature.toUpperCase()}`;
  }
}

/**
 * The oracle for a signed call, from how it was made and the contract alone: queued when, and
 * only when, it is a POST within `MAX_BODY_BYTES`, decodable, under a `Service-Signature` header
 * (any case), signed by a configured key within the tolerance, and its payload is an object whose
 * `event` is forwarded (`event_booked`) in UTF-8 that SQS accepts. With a forged twin header the
 * receiver may read either one.
 */
function expectedForSigned(recipe: SignedRecipe, sent: Buffer, text: string): Expected {
  const verified =
    recipe.method === 'POST' &&
    sent.byteLength <= MAX_BODY_BYTES &&
    recipe.transport !== 'invalid-base64' &&
    recipe.headerName.toLowerCase() === 'service-signature' &&
    CONFIGURED_KEYS.has(recipe.key) &&
    Math.abs(recipe.offset) <= TOLERANCE_SECONDS;
  const forwarded =
    verified &&
    !recipe.invalidUtf8 &&
    !recipe.wrapped &&
    recipe.event === 'event_booked' &&
    // The only characters of valid JSON text that SQS refuses in a message body.
    !/[\uFFFE\uFFFF]/.test(text);
  if (!forwarded) return 'not queued';
  return recipe.twinHeaderName === undefined ? 'queued' : 'either';
}

function buildSigned(recipe: SignedRecipe, nonce: string): BuiltCall {
  const payloadWithPad = (pad: string) => {
    const payload = {
      event: recipe.event,
      nonce,
      data: { id: nonce, user: { ...BOOKER } },
      extra: recipe.extra,
      ...(recipe.invalidUtf8 ? { note: INVALID_UTF8_PLACEHOLDER } : {}),
      pad,
    };
    return recipe.wrapped ? [payload] : payload;
  };
  const unpadded = Buffer.byteLength(spell(payloadWithPad(''), recipe.sentSpelling));
  const padLength = {
    small: 0,
    'at-limit': MAX_BODY_BYTES - unpadded,
    'over-limit': MAX_BODY_BYTES - unpadded + 1,
  }[recipe.size];
  const value = payloadWithPad('p'.repeat(Math.max(padLength, 0)));
  const sent = bodyBytes(spell(value, recipe.sentSpelling), recipe.invalidUtf8);
  const signed = bodyBytes(spell(value, recipe.signedSpelling), recipe.invalidUtf8);
  const timestamp = NOW + recipe.offset;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    [recipe.headerName]: signatureHeader(recipe, timestamp, signed),
  };
  if (recipe.twinHeaderName !== undefined && recipe.twinHeaderName !== recipe.headerName) {
    headers[recipe.twinHeaderName] = `t=${timestamp},signature=${'0'.repeat(64)}`;
  }
  const text = sent.toString('utf8');
  const call: HttpCall = {
    method: recipe.method,
    headers,
    body: recipe.invalidUtf8 ? new Uint8Array(sent) : text,
    base64: recipe.transport === 'base64',
  };
  const event = eventFor(recipe.flavour, call);
  return {
    event: recipe.transport === 'invalid-base64' ? withRawBase64Body(event, text) : event,
    text,
    expected: expectedForSigned(recipe, sent, text),
  };
}

function buildHostile(recipe: HostileRecipe): BuiltCall {
  const headers = Object.fromEntries([
    ...(recipe.signature === null ? [] : [recipe.signature]),
    ...recipe.headers,
    ...(recipe.manyHeaders
      ? Array.from({ length: 5000 }, (_, index) => [`x-filler-${index}`, 'v'.repeat(index % 64)])
      : []),
  ]);
  const call: HttpCall = {
    method: recipe.method,
    headers,
    ...(recipe.body === undefined ? {} : { body: recipe.body }),
    base64: recipe.encoding === 'base64',
  };
  let event = eventFor(recipe.flavour, call);
  if (recipe.encoding === 'invalid-base64') {
    event = withRawBase64Body(event, typeof recipe.body === 'string' ? recipe.body : '!');
  }
  if (recipe.nullHeaders) {
    // REST APIs send null, not {}, for a request without headers.
    event = { ...event, headers: null, multiValueHeaders: null } as unknown as ApiGatewayEvent;
  }
  // Nobody without a configured key can produce a valid signature.
  return { event, text: '', expected: 'not queued' };
}

function eventFor(kind: Flavour, call: HttpCall): ApiGatewayEvent {
  return kind === 'rest' ? restApiEvent(call) : httpApiEvent(call);
}

/** The body as sent, marked as base64 although it is not (API Gateway never does this; a proxy might). */
function withRawBase64Body(event: ApiGatewayEvent, body: string): ApiGatewayEvent {
  return { ...event, body, isBase64Encoded: true };
}

const RESPONSE_STATUSES = [200, 400, 401, 405, 413];

/** What any response may show: a contract status and body, and nothing secret. */
function expectSafeResponse(response: ApiGatewayResponse): void {
  expect(RESPONSE_STATUSES).toContain(response.statusCode);
  const body: unknown = JSON.parse(response.body);
  if (response.statusCode === 200) {
    expect(body).toEqual({ status: expect.stringMatching(/^(queued|ignored)$/) });
  } else {
    expect(body).toEqual({ error: expect.any(String), reason: expect.any(String) });
  }
  const shown = JSON.stringify(response);
  for (const key of Object.values(KEYS)) expect(shown).not.toContain(key);
  // Neither the expected digest nor any other HMAC-sized hex string.
  expect(shown).not.toMatch(/[0-9a-fA-F]{64}/);
}

describe('Function: handler (hostile input)', () => {
  withoutSdkNodeVersionWarning();
  const sqs = useLocalSqs();
  let secretsManagerClient: SecretsManagerClient;

  beforeAll(() => {
    secretsManagerClient = new SecretsManagerClient({ region: 'eu-west-1' });
    fakeSecretVersions(mockClient(secretsManagerClient), [
      // Stored with the newline a pasted key file leaves; the receiver trims it.
      version('v3', `${KEYS.current}\n`, HOUR, ['AWSCURRENT']),
      version('v4', KEYS.pending, 0, ['AWSPENDING']),
      version('v2', KEYS.previous, 90 * DAY, ['AWSPREVIOUS']),
      version('v1', KEYS.revoked, 180 * DAY, []),
    ]);
  });
  function version(versionId: string, value: string, ageSeconds: number, stages: string[]) {
    return { versionId, value, createdAt: new Date((NOW - ageSeconds) * 1000), stages };
  }

  /** A receiver as deployed (keys from Secrets Manager, standard queue), on a queue of its own. */
  const receiver = () =>
    receiverOnNewQueue(
      sqs(),
      {
        SECRET_ID: 'webhook/signing-key',
        SIGNATURE_TOLERANCE_SECONDS: String(TOLERANCE_SECONDS),
        MAX_BODY_BYTES: String(MAX_BODY_BYTES),
        FORWARD_EVENTS: 'event_booked',
      },
      { secretsManagerClient, now: () => NOW * 1000 },
    );

  it(
    'never throws, never answers 5xx or shows a secret, and queues exactly the validly signed forwarded calls',
    async () => {
      let batch = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof(hostileRecipe, signedRecipe), { minLength: 1, maxLength: 6 }),
          async (recipes) => {
            // Prepare
            batch += 1;
            const { invoke, queuedBodies } = await receiver();
            const calls = recipes.map((recipe, index) =>
              recipe.kind === 'signed'
                ? buildSigned(recipe, `n-${batch}-${index}`)
                : buildHostile(recipe),
            );

            // Act
            const output = captureOutput();
            const responses: ApiGatewayResponse[] = [];
            try {
              for (const call of calls) responses.push(await invoke(call.event));
            } finally {
              output.restore();
            }
            const queued = await queuedBodies();

            // Assess
            const answeredQueued: string[] = [];
            for (const [index, response] of responses.entries()) {
              const call = calls[index] as BuiltCall;
              expectSafeResponse(response);
              const wasQueued = response.body === '{"status":"queued"}';
              if (call.expected !== 'either') expect(wasQueued).toBe(call.expected === 'queued');
              if (wasQueued) answeredQueued.push(call.text);
            }
            expect(queued.toSorted()).toEqual(answeredQueued.toSorted());
            const written = readWrittenLines(output.text());
            expect(written.problems).toEqual([]);
            expect(written.logs).toHaveLength(calls.length);
            for (const secret of [...Object.values(KEYS), BOOKER.name, BOOKER.email]) {
              expect(output.text()).not.toContain(secret);
            }
          },
        ),
        { numRuns: RUNS.numRuns, seed: RUNS.seed },
      );
    },
    RUNS.timeout,
  );

  describe.each(API_GATEWAY_FLAVOURS)(
    'with 100,000 nested arrays in a $name event',
    ({ event }) => {
      const depth = 100_000;
      const forgedHeader = { 'Service-Signature': `t=${NOW},signature=${'0'.repeat(64)}` };
      const signed = (body: string) => ({
        'Service-Signature': signPayload(body, KEYS.current, NOW),
      });
      const deepBooking = `{"event":"event_booked","deep":${nestedArrays(depth)}}`;

      it.each<[string, number, string, HttpCall]>([
        ['unsigned', 401, 'missing_header', { body: nestedArrays(depth) }],
        [
          'read to the end under a forged signature',
          401,
          'signature_mismatch',
          { body: nestedArrays(depth), headers: forgedHeader },
        ],
        [
          'missing its last bracket under a forged signature',
          401,
          'signature_mismatch',
          { body: nestedArrays(depth, { balanced: false }), headers: forgedHeader },
        ],
        [
          'missing its last bracket but signed',
          400,
          'body_not_json',
          {
            body: nestedArrays(depth, { balanced: false }),
            headers: {
              'Service-Signature': signRawBody(
                nestedArrays(depth, { balanced: false }),
                KEYS.current,
                NOW,
              ),
            },
          },
        ],
        [
          'validly signed but not an object',
          400,
          'invalid_payload',
          { body: nestedArrays(depth), headers: signed(nestedArrays(depth)) },
        ],
      ])('answers %s with %i %s and queues nothing', async (_, status, reason, call) => {
        // Prepare
        const { invoke, queuedBodies } = await receiver();
        const output = captureOutput();

        // Act
        const response = await invoke(event(call)).finally(() => output.restore());

        // Assess
        expect(response.statusCode).toBe(status);
        expect(JSON.parse(response.body)).toMatchObject({ reason });
        expect(await queuedBodies()).toEqual([]);
      });

      it('queues a validly signed booking that carries them, byte for byte', async () => {
        // Prepare
        const { invoke, queuedBodies } = await receiver();
        const output = captureOutput();

        // Act
        const response = await invoke(
          event({ body: deepBooking, headers: signed(deepBooking) }),
        ).finally(() => output.restore());

        // Assess
        expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
        expect(await queuedBodies()).toEqual([deepBooking]);
      });
    },
  );
});
