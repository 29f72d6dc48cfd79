import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { diagnoseSignature } from '../../devkit/diagnose-signature.js';
import type { LocalWebhookSecret } from '../../devkit/dotenv.js';
import type { VerifyFailureReason } from '../../lambda/core/index.js';
import { parseSignatureHeader } from '../../lambda/core/index.js';
import type { ArchivedObject } from '../local-archive.js';
import type { ObservedDelivery } from '../webhook-server.js';
import { INSPECTOR_PATH } from '../webhook-server.js';
import { freshReplayRefusal, type InspectorMode, refusalOf } from './access.js';
import {
  type DeliveryDetail,
  type DiagnosisFields,
  pairs,
  StoredDelivery,
  signatureOf,
} from './delivery.js';
import { DeliveryStore, type StoreChange } from './delivery-store.js';
import { replayBodyProblem, sendJson, serveAsset } from './http-answers.js';
import { MAX_HELD_BODY_BYTES, MAX_KEPT_BODY_BYTES, MAX_STREAM_BACKLOG_BYTES } from './limits.js';
import { MessageTracker } from './message-tracker.js';
import { tapQueueRequests } from './queue-tap.js';
import { freshSigningRefusal, NOT_REPLAYABLE, replayDelivery } from './replay.js';

/** Options of {@link createInspector}. */
export interface InspectorOptions {
  readonly mode: Exclude<InspectorMode, 'off'>;
  /** `HOST` the local server listens on. */
  readonly listenHost: string;
  /**
   * The local key of the endpoint a path names (`/webhook`, or `/webhook/<name>` with
   * `ENDPOINTS`), `undefined` for a path naming none: used for 401 diagnoses and fresh
   * signatures, never shown.
   */
  readonly keyOf: (pathname: string) => LocalWebhookSecret | undefined;
  /** Base URL of the local server (known once it listens), for replays. */
  readonly origin: () => string;
  /**
   * Called with a failure of the inspector's own (a diagnosis or an archive link that threw); no
   * answer depends on it.
   */
  readonly onError: (error: unknown) => void;
}

/** The local delivery inspector: hooks for the server and the queue, and its routes. */
export interface Inspector {
  /** For `startWebhookServer`'s `onDelivery`: records a delivery, never diagnoses it. */
  readonly onDelivery: (delivery: ObservedDelivery) => void;
  /** For `startWebhookServer`'s `inspector`: answers everything under `/_inspector`. */
  readonly routes: (request: IncomingMessage, response: ServerResponse) => Promise<void>;
  /**
   * For `startLocalArchive`'s `onArchived`: links a call to the archive object of its record;
   * never throws (its failures go to `onError`).
   */
  readonly onArchived: (record: Buffer, object: ArchivedObject) => void;
  /** Wraps the embedded queue's listener to learn message ids and consumption. */
  readonly tapQueue: (listener: RequestListener) => RequestListener;
  /** Ends open live streams (before the server closes). */
  close(): void;
}

const REASONS_WITH_DIAGNOSIS = new Set<string>([
  'missing_header',
  'malformed_header',
  'timestamp_too_old',
  'timestamp_in_future',
  'signature_mismatch',
  'body_not_json',
]);

/**
 * The inspector behind `http://127.0.0.1:<port>/_inspector`: keeps the last 500 deliveries,
 * explains 401s as `npm run verify` does (when one is opened, never on the request path), links
 * queued deliveries to their queue message, and serves the page, its JSON API, a live stream
 * (server-sent events) and replays.
 */
export function createInspector(options: InspectorOptions): Inspector {
  const store = new DeliveryStore();
  const tracker = new MessageTracker(store);
  const streams = new Set<ServerResponse>();
  const keyOfTarget = (target: string): LocalWebhookSecret | undefined =>
    options.keyOf(new URL(target, 'http://localhost').pathname);

  /** A 401's diagnosis from its whole body; why there is none when it cannot be made. */
  const diagnosisOf = (stored: StoredDelivery): DiagnosisFields => {
    const body = stored.wholeBody;
    if (body === undefined) {
      return {
        noDiagnosis: `the whole body (${stored.bodyBytes} bytes) is no longer held: the inspector holds at most ${MAX_HELD_BODY_BYTES / 1024 / 1024} MiB of bodies above ${MAX_KEPT_BODY_BYTES / 1024} KiB until they are opened; run npm run verify on the exact bytes`,
      };
    }
    const { reason } = stored.summary();
    const key = keyOfTarget(stored.target);
    if (key === undefined || !REASONS_WITH_DIAGNOSIS.has(reason)) return { diagnosis: [] };
    const header = signatureOf(pairs(stored.rawHeaders)) ?? '';
    const parsed = parseSignatureHeader(header);
    try {
      const diagnosis = diagnoseSignature({
        header,
        body,
        key: { key: key.secret, raw: key.secret, source: key.variable },
        now: Math.floor(stored.receivedAt / 1000),
        reason: reason as VerifyFailureReason,
        timestamp: parsed.ok ? parsed.header.timestamp : undefined,
      });
      return diagnosis.ok ? { diagnosis: diagnosis.hints } : { noDiagnosis: diagnosis.why };
    } catch (error) {
      options.onError(error);
      return { noDiagnosis: 'the diagnosis failed (npm start printed why)' };
    }
  };

  /**
   * Why a fresh signature of `stored` is refused, by who sent it or by what the local key
   * signed; `undefined` when it may be made (or when no key serves its path: it is then
   * replayed as it is).
   */
  const freshRefusalOf = (stored: StoredDelivery): string | undefined => {
    const key = keyOfTarget(stored.target);
    return (
      stored.freshSignatureRefusal ??
      (key === undefined ? undefined : freshSigningRefusal(stored, key.secret))
    );
  };

  /** The detail of a kept delivery; a 401 opened for the first time is diagnosed then, once. */
  const openDetail = (stored: StoredDelivery): DeliveryDetail => {
    if (stored.awaitsDiagnosis) stored.diagnosed(diagnosisOf(stored));
    const detail = stored.detail();
    const freshSignatureRefusal = stored.bytes === undefined ? undefined : freshRefusalOf(stored);
    return freshSignatureRefusal === undefined ? detail : { ...detail, freshSignatureRefusal };
  };

  // The archive writes a call's record with the others of its buffer, mostly after the call was
  // answered and kept here, and is then linked at once; an object written before the delivery is
  // kept waits here for it, keyed by the request id the record carries, bounded like the
  // tracker's unmatched sends.
  const archivedByRequest = new Map<string, ArchivedObject>();
  const linkArchived = (record: Buffer, object: ArchivedObject): void => {
    const requestId = requestIdOf(record);
    if (requestId === undefined) return;
    if (store.get(requestId) !== undefined) {
      store.update(requestId, { archive: object });
      return;
    }
    archivedByRequest.set(requestId, object);
    const oldest = archivedByRequest.keys().next().value;
    if (archivedByRequest.size > MAX_UNCLAIMED_ARCHIVED && oldest !== undefined) {
      archivedByRequest.delete(oldest);
    }
  };
  // An observer of the archive: its own failure is reported, never passed on to the archive.
  const onArchived = (record: Buffer, object: ArchivedObject): void => {
    try {
      linkArchived(record, object);
    } catch (error) {
      options.onError(error);
    }
  };

  const onDelivery = (observed: ObservedDelivery): void => {
    const stored = new StoredDelivery(observed);
    const archived = archivedByRequest.get(observed.requestId);
    if (archived !== undefined) {
      archivedByRequest.delete(observed.requestId);
      stored.change({ archive: archived });
    }
    const message =
      stored.status === 200
        ? tracker.claim(
            observed.body.toString('utf8'),
            signatureTimestamp(signatureOf(pairs(observed.rawHeaders))),
          )
        : undefined;
    if (message !== undefined) stored.change({ message });
    store.add(stored);
  };

  store.subscribe((change) => {
    // Nobody watching: the row is not even read (that waits until it is listed).
    if (streams.size === 0) return;
    const event = streamEvent(change);
    for (const stream of streams) {
      // A page that stopped reading is let go rather than buffered for without end; it reloads
      // the list when its EventSource reconnects.
      if (stream.writableLength > MAX_STREAM_BACKLOG_BYTES) {
        streams.delete(stream);
        stream.destroy();
      } else {
        stream.write(event);
      }
    }
  });

  const routes = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refusal = refusalOf(request, options.mode, options.listenHost);
    if (refusal !== undefined) {
      request.resume();
      return sendJson(response, 403, { message: refusal });
    }
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    const route = pathname.slice(INSPECTOR_PATH.length).replace(/^\/+/, '');
    const method = request.method ?? 'GET';
    const replay = /^api\/deliveries\/([\w-]+)\/replay$/.exec(route);
    if (replay !== null && method === 'POST') {
      return answerReplay(request, response, replay[1] ?? '');
    }
    request.resume();
    if (replay !== null || (method !== 'GET' && method !== 'HEAD')) {
      response.setHeader('allow', replay !== null ? 'POST' : 'GET, HEAD');
      return sendJson(response, 405, { message: 'Method Not Allowed' });
    }
    if (route === 'api/deliveries') return sendJson(response, 200, { deliveries: store.list() });
    const single = /^api\/deliveries\/([\w-]+)$/.exec(route);
    if (single !== null) {
      const stored = store.get(single[1] ?? '');
      if (stored === undefined) return sendJson(response, 404, { message: 'No such delivery' });
      return sendJson(response, 200, openDetail(stored));
    }
    if (route === 'api/stream') return openStream(response);
    if (!(await serveAsset(route, response))) sendJson(response, 404, { message: 'Not Found' });
  };

  const answerReplay = async (
    request: IncomingMessage,
    response: ServerResponse,
    id: string,
  ): Promise<void> => {
    const problem = await replayBodyProblem(request);
    if (problem !== undefined)
      return sendJson(response, problem.status, { message: problem.message });
    const fresh = new URL(request.url ?? '/', 'http://localhost').searchParams.get('fresh') === '1';
    const stored = store.get(id);
    if (stored === undefined) return sendJson(response, 404, { message: 'No such delivery' });
    if (stored.bytes === undefined) {
      return sendJson(response, 409, { message: NOT_REPLAYABLE });
    }
    const freshRefusal = fresh ? freshReplayRefusal(request, stored) : undefined;
    if (freshRefusal !== undefined) return sendJson(response, 403, { message: freshRefusal });
    const freshKey = fresh ? keyOfTarget(stored.target) : undefined;
    const unsigned =
      freshKey === undefined ? undefined : freshSigningRefusal(stored, freshKey.secret);
    if (unsigned !== undefined) return sendJson(response, 409, { message: unsigned });
    // Signed only once freshSigningRefusal found the body JSON and signed by the key.
    const answer = await replayDelivery(stored, {
      origin: options.origin(),
      ...(freshKey === undefined ? {} : { freshSignatureKey: freshKey.secret }),
    });
    if (answer.requestId !== undefined) store.update(answer.requestId, { replayOf: id });
    const replayed = answer.requestId === undefined ? undefined : store.get(answer.requestId);
    return sendJson(response, 200, {
      status: answer.status,
      replayOf: id,
      ...(replayed === undefined ? {} : { delivery: replayed.summary() }),
    });
  };

  const openStream = (response: ServerResponse): void => {
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    response.write(': connected\n\n');
    streams.add(response);
    response.on('close', () => streams.delete(response));
  };

  return {
    onDelivery,
    onArchived,
    routes,
    tapQueue: (listener) => tapQueueRequests(listener, (activity) => tracker.onActivity(activity)),
    close: () => {
      for (const stream of streams) stream.end();
      streams.clear();
    },
  };
}

/**
 * Archive objects waiting for their delivery: the archive writes a record's object about a second
 * after the call, mostly once its delivery is kept here, so few wait.
 */
const MAX_UNCLAIMED_ARCHIVED = 100;

/** The `api_request_id` of an archive record (one JSON line), if it is one. */
function requestIdOf(record: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(record.toString('utf8'));
    const id = (parsed as { api_request_id?: unknown }).api_request_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** One server-sent event of the live stream: `delivery` (a row new or changed) or `dropped`. */
function streamEvent(change: StoreChange): string {
  const data = change.kind === 'delivery' ? change.delivery.summary() : { id: change.id };
  return `event: ${change.kind}\ndata: ${JSON.stringify(data)}\n\n`;
}

function signatureTimestamp(header: string | undefined): number | undefined {
  const parsed = parseSignatureHeader(header);
  return parsed.ok ? parsed.header.timestamp : undefined;
}
