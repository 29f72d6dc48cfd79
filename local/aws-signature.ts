/**
 * Signature Version 4 on the local run's side: checking that a request was signed with the
 * state folder's credentials (in its `Authorization` header, or as a presigned URL), and
 * presigning the inspector's links to archive objects. The canonical request is computed by the
 * AWS SDK's own signer (`@smithy/signature-v4`) from what arrived, and the signatures compared.
 * @module
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { LocalArchiveCredentials } from '../devkit/archive-credentials.js';
import { LOCAL_REGION } from '../devkit/local-run.js';

/** What a request carries that its signature covers. */
export interface SignedRequest {
  readonly method: string;
  /** The request target as it arrived: the path still percent-encoded, and the query. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The body, when read: it is hashed when `x-amz-content-sha256` does not give its hash. */
  readonly body?: Buffer;
}

/** The outcome of {@link checkAwsSignature}: a refusal says why, in S3's terms. */
export type SignatureCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly status: 400 | 403;
      readonly code: string;
      readonly message: string;
    };

/** What a request's signature must match. */
export interface ExpectedSigner {
  readonly credentials: LocalArchiveCredentials;
  /** The service the signature is scoped to: `s3`, `firehose`. */
  readonly service: string;
  readonly now: Date;
}

/** How far a signed request's time may be from now, as S3 allows. */
const MAX_SKEW_MS = 15 * 60 * 1000;

/** Longest life of a presigned URL: SigV4's (a week). */
export const MAX_PRESIGNED_SECONDS = 7 * 24 * 60 * 60;

const ALGORITHM = 'AWS4-HMAC-SHA256';

/** The query parameters of a presigned URL that carry its signature, not the request. */
const PRESIGN_PARAMETERS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
  'X-Amz-Security-Token',
];

const CONTENT_SHA256 = 'x-amz-content-sha256';
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

/** The message of a request with no signature. */
export const UNSIGNED_REFUSAL =
  'the local archive answers only requests signed (SigV4) with the credentials in its state folder (archive-credentials.json)';

/**
 * Whether `request` is signed (SigV4, in its `Authorization` header or as a presigned URL) with
 * `expected.credentials` for `expected.service`, at a time S3 would accept (15 minutes either
 * way; a presigned URL until it expires). Any refusal is 403, except a signature that cannot be
 * read (400), as S3 answers.
 */
export async function checkAwsSignature(
  request: SignedRequest,
  expected: ExpectedSigner,
): Promise<SignatureCheck> {
  const [path = '/', rawQuery] = splitTarget(request.url);
  const query = parseQuery(rawQuery);
  if (query === undefined) return malformed('the query string cannot be decoded');
  const presigned = 'X-Amz-Algorithm' in query;
  const header = request.headers.authorization;
  if (header === undefined && !presigned) return refused('AccessDenied', UNSIGNED_REFUSAL);
  if (header !== undefined && presigned) {
    return malformed('sign with the Authorization header or the query string, not both');
  }
  const fields =
    header === undefined ? presignFields(query) : headerFields(header, request.headers);
  if (fields === undefined) return malformed('the signature cannot be read');
  const [accessKeyId, day, region = '', service, terminator] = fields.credential.split('/');
  if (
    fields.algorithm !== ALGORITHM ||
    terminator !== 'aws4_request' ||
    fields.signedHeaders.length === 0
  ) {
    return malformed('the signature cannot be read');
  }
  if (accessKeyId !== expected.credentials.accessKeyId) {
    return refused(
      'InvalidAccessKeyId',
      `${UNSIGNED_REFUSAL}: the access key is not this archive's`,
    );
  }
  const signingDate = parseAmzDate(fields.date);
  if (
    signingDate === undefined ||
    day !== fields.date.slice(0, 8) ||
    service !== expected.service
  ) {
    return refused('SignatureDoesNotMatch', 'the signature is not scoped to this request');
  }
  const lateness = expected.now.getTime() - signingDate.getTime();
  if (fields.expires === undefined ? Math.abs(lateness) > MAX_SKEW_MS : lateness < -MAX_SKEW_MS) {
    return refused('RequestTimeTooSkewed', 'the request time is too far from the local time');
  }
  if (fields.expires !== undefined && lateness > fields.expires * 1000) {
    return refused('AccessDenied', 'the presigned URL has expired');
  }
  const signer = new SignatureV4({
    credentials: expected.credentials,
    region,
    service: expected.service,
    sha256: Sha256,
    uriEscapePath: expected.service !== 's3',
    applyChecksum: false,
  });
  const signedHeaders = new Set(fields.signedHeaders);
  const headers = Object.fromEntries(
    fields.signedHeaders.flatMap((name) => {
      const value = request.headers[name];
      return value === undefined ? [] : [[name, Array.isArray(value) ? value.join(',') : value]];
    }),
  );
  const toSign = { method: request.method, protocol: 'http:', hostname: '', path, query, headers };
  let made: { readonly signature: string | undefined; readonly signedHeaders: string | undefined };
  if (fields.expires === undefined) {
    const signed = await signer.sign(
      request.body === undefined ? toSign : { ...toSign, body: request.body },
      { signingDate, signableHeaders: signedHeaders },
    );
    const authorization = String(signed.headers.authorization ?? '');
    made = {
      signature: /Signature=([0-9a-f]+)$/.exec(authorization)?.[1],
      signedHeaders: /SignedHeaders=([^,]+),/.exec(authorization)?.[1],
    };
  } else {
    const withoutSignature = Object.fromEntries(
      Object.entries(query).filter(([name]) => !PRESIGN_PARAMETERS.includes(name)),
    );
    const unsigned = signedHeaders.has(CONTENT_SHA256) ? [] : [CONTENT_SHA256];
    const signed = await signer.presign(
      {
        ...toSign,
        query: withoutSignature,
        headers: { ...headers, [CONTENT_SHA256]: UNSIGNED_PAYLOAD },
      },
      {
        signingDate,
        expiresIn: fields.expires,
        signableHeaders: signedHeaders,
        unsignableHeaders: new Set(unsigned),
        unhoistableHeaders: new Set([...signedHeaders, CONTENT_SHA256]),
      },
    );
    made = {
      signature: String(signed.query?.['X-Amz-Signature'] ?? ''),
      signedHeaders: String(signed.query?.['X-Amz-SignedHeaders'] ?? ''),
    };
  }
  return made.signedHeaders === fields.signedHeaders.join(';') &&
    sameText(made.signature ?? '', fields.signature)
    ? { ok: true }
    : refused('SignatureDoesNotMatch', "the signature does not match this archive's credentials");
}

/**
 * The request target without what carried its signature (the `Authorization` header is left to
 * the caller): what an emulator that checks signatures of its own (s3rver) is handed once this
 * module checked them.
 */
export function targetWithoutSignature(url: string): string {
  const [path = '/', rawQuery] = splitTarget(url);
  if (rawQuery === undefined) return path;
  const kept = rawQuery
    .split('&')
    .filter((pair) => !PRESIGN_PARAMETERS.includes(safeDecode(pair.split('=', 1)[0] ?? '') ?? ''));
  return kept.length === 0 ? path : `${path}?${kept.join('&')}`;
}

/**
 * A presigned GET URL for an object of the local archive, valid `expiresInSeconds` (at most
 * {@link MAX_PRESIGNED_SECONDS}): what a browser can open without the credentials.
 *
 * @param origin - the archive's origin, `http://127.0.0.1:<port>`
 * @param path - the object's path, `/<bucket>/<key>` (each segment percent-encoded)
 */
export async function presignedGetUrl(
  origin: string,
  path: string,
  credentials: LocalArchiveCredentials,
  now: Date,
  expiresInSeconds: number,
): Promise<string> {
  const { host } = new URL(origin);
  const signer = new SignatureV4({
    credentials,
    region: LOCAL_REGION,
    service: 's3',
    sha256: Sha256,
    uriEscapePath: false,
  });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'http:',
      hostname: '',
      path,
      query: {},
      headers: { host, [CONTENT_SHA256]: UNSIGNED_PAYLOAD },
    },
    {
      signingDate: now,
      expiresIn: expiresInSeconds,
      unsignableHeaders: new Set([CONTENT_SHA256]),
      unhoistableHeaders: new Set([CONTENT_SHA256]),
    },
  );
  const query = Object.entries(signed.query ?? {})
    .map(([name, value]) => `${escapeUri(name)}=${escapeUri(String(value))}`)
    .join('&');
  return `${origin}${path}?${query}`;
}

/** A segment of a path or a query value, percent-encoded as SigV4 does (RFC 3986). */
export function escapeUri(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The fields of a signature, from either place it can be. */
interface SignatureFields {
  readonly algorithm: string;
  readonly credential: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
  /** `X-Amz-Date`: `20261207T011500Z`. */
  readonly date: string;
  /** A presigned URL's life in seconds; `undefined` for a signed header. */
  readonly expires?: number;
}

function headerFields(
  authorization: string,
  headers: IncomingHttpHeaders,
): SignatureFields | undefined {
  const match =
    /^(\S+) Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]+)$/.exec(
      authorization.trim(),
    );
  const date = headers['x-amz-date'];
  if (match === null || typeof date !== 'string') return undefined;
  const [, algorithm = '', credential = '', signedHeaders = '', signature = ''] = match;
  return { algorithm, credential, signedHeaders: signedHeaders.split(';'), signature, date };
}

function presignFields(
  query: Readonly<Record<string, string | string[]>>,
): SignatureFields | undefined {
  const one = (name: string): string | undefined => {
    const value = query[name];
    return typeof value === 'string' ? value : undefined;
  };
  const expires = Number(one('X-Amz-Expires'));
  const [algorithm, credential, signedHeaders, signature, date] = [
    'X-Amz-Algorithm',
    'X-Amz-Credential',
    'X-Amz-SignedHeaders',
    'X-Amz-Signature',
    'X-Amz-Date',
  ].map(one);
  if (
    algorithm === undefined ||
    credential === undefined ||
    signedHeaders === undefined ||
    signature === undefined ||
    date === undefined ||
    !Number.isInteger(expires) ||
    expires < 1 ||
    expires > MAX_PRESIGNED_SECONDS
  ) {
    return undefined;
  }
  return {
    algorithm,
    credential,
    signedHeaders: signedHeaders.split(';'),
    signature,
    date,
    expires,
  };
}

/** `20261207T011500Z` as a date, or `undefined`. */
function parseAmzDate(text: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hours, minutes, seconds] = match;
  const date = new Date(`${year}-${month}-${day}T${hours}:${minutes}:${seconds}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The path and the raw query (without `?`) of a request target. */
function splitTarget(url: string): [string, string | undefined] {
  const at = url.indexOf('?');
  return at === -1 ? [url, undefined] : [url.slice(0, at), url.slice(at + 1)];
}

/**
 * A raw query decoded as SigV4 reads it (`+` is a plus, not a space; a name given twice has
 * each value), or `undefined` when a part is not valid percent-encoding.
 */
function parseQuery(rawQuery: string | undefined): Record<string, string | string[]> | undefined {
  const query: Record<string, string | string[]> = Object.create(null);
  if (rawQuery === undefined || rawQuery === '') return query;
  for (const pair of rawQuery.split('&')) {
    const at = pair.indexOf('=');
    const name = safeDecode(at === -1 ? pair : pair.slice(0, at));
    const value = safeDecode(at === -1 ? '' : pair.slice(at + 1));
    if (name === undefined || value === undefined) return undefined;
    const earlier = query[name];
    query[name] = earlier === undefined ? value : [earlier, value].flat();
  }
  return query;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  // timingSafeEqual throws on different lengths; a length says nothing about the key.
  return left.length === right.length && timingSafeEqual(left, right);
}

function malformed(message: string): SignatureCheck {
  return { ok: false, status: 400, code: 'AuthorizationHeaderMalformed', message };
}

function refused(code: string, message: string): SignatureCheck {
  return { ok: false, status: 403, code, message };
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

function toBuffer(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** SHA-256, and HMAC-SHA-256 when given a key, in the shape the SDK's signer takes. */
export class Sha256 {
  readonly #hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;

  constructor(secret?: SourceData) {
    this.#hash =
      secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }

  update(data: SourceData): void {
    this.#hash.update(toBuffer(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.#hash.digest()));
  }
}
