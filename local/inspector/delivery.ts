import { createHash } from 'node:crypto';
import { isLoopbackAddress } from '../../devkit/local-run.js';
import { ALLOWED_SOURCE_IPS } from '../../lambda/contract/environment.js';
import { SOURCE_NOT_ALLOWED } from '../../lambda/contract/source-allowlist.js';
import { parseSignatureHeader } from '../../lambda/core/index.js';
import { SIGNATURE_HEADER_KEY } from '../../lambda/core/signature-header.js';
import type { ObservedDelivery } from '../webhook-server.js';
import { MAX_KEPT_BODY_BYTES } from './limits.js';

/** The queue message a queued delivery became, as the embedded queue saw it. */
export interface QueuedMessage {
  readonly messageId: string;
  /** Message attributes as sent, name -> string value. */
  readonly attributes: Readonly<Record<string, string>>;
  /** Times a consumer received it. */
  readonly receiveCount: number;
  /** Whether a consumer deleted it (processed it). */
  readonly consumed: boolean;
}

/** The archive object holding a delivery's record (the local run's archive). */
export interface ArchiveLink {
  readonly key: string;
  /** The object on the local S3, e.g. `http://127.0.0.1:9325/webhook-archive/deliveries/…`. */
  readonly url: string;
}

/** One row of the inspector's list. */
export interface DeliverySummary {
  /** The request id the local server gave the call (`x-amzn-RequestId`). */
  readonly id: string;
  /** When it arrived, ISO 8601. */
  readonly receivedAt: string;
  /** Path the call was sent to. */
  readonly endpoint: string;
  readonly method: string;
  readonly status: number;
  /** `queued`, `ignored` or the rejection reason the receiver answered with. */
  readonly reason: string;
  readonly eventType?: string;
  readonly bookingId?: string;
  /** Arrival time minus the signature's `t`, in seconds (positive: signed in the past). */
  readonly skewSeconds?: number;
  readonly bodyBytes: number;
  /** The delivery this one replays, when sent by the inspector's replay button. */
  readonly replayOf?: string;
  readonly consumed?: boolean;
}

/** Everything the detail view shows. */
export interface DeliveryDetail extends DeliverySummary {
  /** Request headers as sent, in order, names as spelled by the sender. */
  readonly headers: ReadonlyArray<readonly [name: string, value: string]>;
  /** The body as received (UTF-8 text, or base64 when `bodyEncoding` says so), truncated past 64 KiB. */
  readonly body: string;
  readonly bodyEncoding: 'utf8' | 'base64';
  readonly bodyTruncated: boolean;
  /**
   * SHA-256 hex of the full body; absent when a body above 64 KiB was let go (see
   * `MAX_HELD_BODY_BYTES`) before the delivery was first opened.
   */
  readonly bodySha256?: string;
  /** The caller's address as the receiver saw it (what `ALLOWED_SOURCE_IPS` is checked against). */
  readonly sourceIp: string;
  /** The `Origin` of the web page that sent the call, when it came with one (see `webPageOrigin`). */
  readonly webPageOrigin?: string;
  /**
   * Why a replay with a fresh signature is refused for this call: who sent it (see
   * `freshSignatureRefusal`), or a body the local key never signed (`freshSigningRefusal`).
   */
  readonly freshSignatureRefusal?: string;
  /** The receiver's response body. */
  readonly response: string;
  /**
   * For a 401, once the delivery was opened (the diagnosis is made then, never on the request
   * path): what would have made the signature match, as `npm run verify` explains it; for a 403
   * `source_not_allowed`: which address was refused and what would let it in.
   */
  readonly diagnosis?: readonly string[];
  /**
   * For a 401 the diagnosis cannot describe (a body too deep, too large, or let go), or a call
   * answered before its body was read (413): why.
   */
  readonly noDiagnosis?: string;
  readonly message?: QueuedMessage;
  /** The archive object holding the call's record, once written. */
  readonly archive?: ArchiveLink;
}

/** A 401's diagnosis as the detail shows it: hints, or why there are none. */
export type DiagnosisFields = Pick<DeliveryDetail, 'diagnosis' | 'noDiagnosis'>;

/** The row fields of a delivery that never change once it is recorded. */
type Row = Omit<DeliverySummary, 'replayOf' | 'consumed'>;

// ignoreBOM keeps a leading byte order mark in the text, which the detail shows as the exact
// bytes received (the receiver reads bodies the same way).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * One webhook call as the inspector keeps it. Recording it costs next to nothing: it keeps what
 * the server already holds. What the views show is derived when first asked, off the request
 * path: the row when it is listed or streamed (event type and booking id read from bodies up to
 * 64 KiB), the detail when it is opened (the SHA-256 and a 401's diagnosis need the whole body,
 * which the store holds within `MAX_HELD_BODY_BYTES` for bodies above 64 KiB).
 */
export class StoredDelivery {
  /** The request id the local server gave the call (`x-amzn-RequestId`). */
  readonly id: string;
  readonly method: string;
  /** Request target as sent (path and query). */
  readonly target: string;
  /** Header names and values in the order received. */
  readonly rawHeaders: readonly string[];
  readonly status: number;
  readonly bodyBytes: number;
  /** Arrival time, epoch milliseconds. */
  readonly receivedAt: number;
  /** The caller's address as the handler's event carried it. */
  readonly sourceIp: string;
  readonly #responseBody: string;
  /** Why the server answered without reading the body (a 413), if it did. */
  readonly #bodyNotRead: string | undefined;
  /** The whole body while it is held; its first {@link MAX_KEPT_BODY_BYTES} once let go. */
  #body: Buffer;
  #row: Row | undefined;
  #sha256: string | undefined;
  #replayOf: string | undefined;
  #message: QueuedMessage | undefined;
  #archive: ArchiveLink | undefined;
  #diagnosis: DiagnosisFields | undefined;

  constructor(observed: ObservedDelivery) {
    this.id = observed.requestId;
    this.method = observed.method;
    this.target = observed.target;
    this.rawHeaders = observed.rawHeaders;
    this.status = observed.statusCode;
    this.bodyBytes = observed.body.byteLength;
    this.receivedAt = observed.receivedAt;
    this.sourceIp = observed.sourceIp;
    this.#responseBody = observed.responseBody;
    this.#bodyNotRead = observed.bodyNotRead;
    this.#body = observed.body;
  }

  /** The exact body, for a replay; `undefined` when it was above 64 KiB (kept truncated). */
  get bytes(): Buffer | undefined {
    return this.bodyBytes <= MAX_KEPT_BODY_BYTES ? this.#body : undefined;
  }

  /** The whole body, while the inspector holds it. */
  get wholeBody(): Buffer | undefined {
    return this.#body.byteLength === this.bodyBytes ? this.#body : undefined;
  }

  /** Bytes held beyond the kept 64 KiB: a whole body above that size, until it is let go. */
  get heldBytes(): number {
    return this.#body.byteLength > MAX_KEPT_BODY_BYTES ? this.#body.byteLength : 0;
  }

  /** Keeps only the first 64 KiB of a body above that size. */
  letGoOfWholeBody(): void {
    if (this.heldBytes > 0) this.#body = Buffer.from(this.#body.subarray(0, MAX_KEPT_BODY_BYTES));
  }

  /**
   * The `Origin` header the call came with: a browser puts one on every POST a web page sends,
   * cross-site ones included, and the booking service never sends one, so a call that has it was
   * sent by a web page, whatever its body looks like.
   */
  get webPageOrigin(): string | undefined {
    return headerOf(pairs(this.rawHeaders), 'origin');
  }

  /**
   * Why this call is not to be signed afresh with the local key, or `undefined` when it may be: a
   * web page sent it (any site can make a browser POST to /webhook), or another machine did
   * (with `HOST` open to the network). One click must not sign a body someone else posted; the
   * exact request can always be replayed.
   */
  get freshSignatureRefusal(): string | undefined {
    const { webPageOrigin } = this;
    if (webPageOrigin !== undefined) {
      return `a web page (${webPageOrigin}) sent this call: its browser added the Origin header, which the booking service never sends, so it is not signed afresh with the local key; replay the exact request instead`;
    }
    if (!isLoopbackAddress(this.sourceIp)) {
      return `another machine (${this.sourceIp || 'an address already gone'}) sent this call, so it is not signed afresh with this machine's local key; replay the exact request instead`;
    }
    return undefined;
  }

  /** The queue message a queued delivery became, once linked. */
  get message(): QueuedMessage | undefined {
    return this.#message;
  }

  /** Links a replay, a queue message or an archive object. */
  change(change: {
    readonly replayOf?: string;
    readonly message?: QueuedMessage;
    readonly archive?: ArchiveLink;
  }): void {
    if (change.replayOf !== undefined) this.#replayOf = change.replayOf;
    if (change.message !== undefined) this.#message = change.message;
    if (change.archive !== undefined) this.#archive = change.archive;
  }

  /** Whether this is a 401 whose diagnosis is not made yet. */
  get awaitsDiagnosis(): boolean {
    return this.status === 401 && this.#diagnosis === undefined;
  }

  /** Keeps a 401's diagnosis. */
  diagnosed(diagnosis: DiagnosisFields): void {
    this.#diagnosis = diagnosis;
  }

  /** The list row. */
  summary(): DeliverySummary {
    this.#row ??= this.#readRow();
    const { message } = this;
    return {
      ...this.#row,
      ...(this.#replayOf === undefined ? {} : { replayOf: this.#replayOf }),
      ...(message === undefined ? {} : { consumed: message.consumed }),
    };
  }

  /**
   * Everything the detail view shows. The SHA-256 is computed the first time; a whole body above
   * 64 KiB is let go then (unless a 401 still awaits its diagnosis): nothing else needs it.
   */
  detail(): DeliveryDetail {
    const whole = this.wholeBody;
    if (this.#sha256 === undefined && whole !== undefined) {
      this.#sha256 = createHash('sha256').update(whole).digest('hex');
    }
    if (!this.awaitsDiagnosis) this.letGoOfWholeBody();
    const kept =
      this.#body.byteLength > MAX_KEPT_BODY_BYTES
        ? this.#body.subarray(0, MAX_KEPT_BODY_BYTES)
        : this.#body;
    const text = decodeUtf8(kept);
    const { webPageOrigin, freshSignatureRefusal } = this;
    return {
      ...this.summary(),
      headers: pairs(this.rawHeaders),
      body: text ?? kept.toString('base64'),
      bodyEncoding: text === undefined ? 'base64' : 'utf8',
      bodyTruncated: this.bodyBytes > MAX_KEPT_BODY_BYTES,
      ...(this.#sha256 === undefined ? {} : { bodySha256: this.#sha256 }),
      sourceIp: this.sourceIp,
      ...(webPageOrigin === undefined ? {} : { webPageOrigin }),
      ...(freshSignatureRefusal === undefined ? {} : { freshSignatureRefusal }),
      response: this.#responseBody,
      ...this.#diagnosis,
      ...(this.#bodyNotRead === undefined ? {} : { noDiagnosis: this.#bodyNotRead }),
      ...(this.summary().reason === SOURCE_NOT_ALLOWED
        ? { diagnosis: sourceNotAllowedHints(this.sourceIp) }
        : {}),
      ...(this.#message === undefined ? {} : { message: this.#message }),
      ...(this.#archive === undefined ? {} : { archive: this.#archive }),
    };
  }

  /**
   * The verdict from the receiver's own answer, event type and booking id from a body up to
   * 64 KiB (reading a larger one would cost more than the call did), the skew from the header.
   */
  #readRow(): Row {
    const answer = parseObject(this.#responseBody);
    const reason = stringField(answer, 'reason') ?? stringField(answer, 'status') ?? 'unknown';
    const payload =
      this.bodyBytes <= MAX_KEPT_BODY_BYTES ? parseObject(this.#body.toString('utf8')) : undefined;
    const data = payload?.data;
    const parsedHeader = parseSignatureHeader(signatureOf(pairs(this.rawHeaders)));
    const eventType = stringField(payload, 'event');
    const bookingId = isRecord(data) ? stringField(data, 'id') : undefined;
    return {
      id: this.id,
      receivedAt: new Date(this.receivedAt).toISOString(),
      endpoint: new URL(this.target, 'http://localhost').pathname,
      method: this.method,
      status: this.status,
      reason,
      ...(eventType === undefined ? {} : { eventType }),
      ...(bookingId === undefined ? {} : { bookingId }),
      ...(parsedHeader.ok
        ? { skewSeconds: Math.floor(this.receivedAt / 1000) - parsedHeader.header.timestamp }
        : {}),
      bodyBytes: this.bodyBytes,
    };
  }
}

/** Why a call from `sourceIp` was refused, and what would let it in. */
function sourceNotAllowedHints(sourceIp: string): string[] {
  return [
    `The call came from ${sourceIp || 'an unknown address'}, which is outside ${ALLOWED_SOURCE_IPS}: the receiver refused it before reading the body or loading a key.`,
    `To let it in, add the address (or its range) to ${ALLOWED_SOURCE_IPS}, or unset it, and start npm start again.`,
  ];
}

/** The `Service-Signature` value among request headers as sent, if any. */
export function signatureOf(
  headers: ReadonlyArray<readonly [name: string, value: string]>,
): string | undefined {
  return headerOf(headers, SIGNATURE_HEADER_KEY);
}

/** The value of the first header named `name` (lower case; any case as sent), if any. */
function headerOf(
  headers: ReadonlyArray<readonly [name: string, value: string]>,
  name: string,
): string | undefined {
  return headers.find(([sent]) => sent.toLowerCase() === name)?.[1];
}

/** Header name and value pairs from Node's flat `rawHeaders`. */
export function pairs(rawHeaders: readonly string[]): Array<readonly [string, string]> {
  const result: Array<readonly [string, string]> = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    result.push([rawHeaders[index] ?? '', rawHeaders[index + 1] ?? '']);
  }
  return result;
}

/** The bytes as UTF-8 text, a leading byte order mark kept; `undefined` when they are not UTF-8. */
export function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The JSON object `text` holds, or `undefined` when it holds none. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `value` is a plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field of an object, if it is one. */
export function stringField(
  record: Record<string, unknown> | undefined,
  name: string,
): string | undefined {
  const value = record?.[name];
  return typeof value === 'string' ? value : undefined;
}
