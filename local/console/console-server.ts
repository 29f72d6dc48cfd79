/**
 * The operator's console's server: the inspector's page and JSON API on loopback, over a
 * receiver's archive and queues instead of `npm start`'s own deliveries. It answers only its own
 * page (the local inspector's Host and Origin guards), reads until the operator asks for a
 * replay or a redrive, and logs nothing a delivery holds.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { LOOPBACK } from '../../devkit/local-run.js';
import { UsageError } from '../../devkit/tool-io.js';
import { refusalOf } from '../inspector/access.js';
import { replayBodyProblem, sendJson, serveAsset } from '../inspector/http-answers.js';
import { closeServer, listen } from '../net.js';
import { INSPECTOR_PATH } from '../webhook-server.js';
import { type ArchiveSource, parseQuery } from './archive-source.js';
import { type DeadLetterQueues, listDeadLetters, redriveDeadLetters } from './dead-letters.js';

/** What the console serves. */
export interface ConsoleOptions {
  /** The port to listen on (0: any free one). */
  readonly port: number;
  /** For the page: `stack X` or `the local run`. */
  readonly targetName: string;
  /** The archive's deliveries, when the receiver keeps an archive. */
  readonly archive: ArchiveSource | undefined;
  /** The queues, when the receiver has a dead-letter queue. */
  readonly queues: DeadLetterQueues | undefined;
  /** Called with a failure of the console's own, once; never with a delivery's content. */
  readonly onError: (error: unknown) => void;
}

/** A running console. */
export interface RunningConsole {
  /** `http://127.0.0.1:<port>/_inspector`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** What the list says about when a call appears in it. */
const LIST_NOTE =
  'The list reads the archive when asked: a call appears once its record is written, about a second after it locally and up to the stream buffer interval (300 s) when deployed.';

/**
 * Starts the console on loopback.
 *
 * @throws the listen error when the port is taken
 */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const server = createServer((request, response) => {
    answer(request, response, options).catch((error: unknown) => {
      options.onError(error);
      if (!response.headersSent) {
        sendJson(response, 500, { message: failureText(error) });
      } else {
        response.destroy();
      }
    });
  });
  const port = await listen(server, options.port, LOOPBACK);
  return {
    url: `http://${LOOPBACK}:${port}${INSPECTOR_PATH}`,
    port,
    close: () => closeServer(server),
  };
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  options: ConsoleOptions,
): Promise<void> {
  const refusal = refusalOf(request, 'auto', LOOPBACK);
  if (refusal !== undefined) {
    request.resume();
    return sendJson(response, 403, { message: refusal });
  }
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname !== INSPECTOR_PATH && !url.pathname.startsWith(`${INSPECTOR_PATH}/`)) {
    request.resume();
    return sendJson(response, 404, { message: 'Not Found' });
  }
  const route = url.pathname.slice(INSPECTOR_PATH.length).replace(/^\/+/, '');
  const method = request.method ?? 'GET';
  const action = ACTIONS.find(({ pattern }) => pattern.test(route));
  if (action !== undefined) {
    if (method !== 'POST') {
      request.resume();
      response.setHeader('allow', 'POST');
      return sendJson(response, 405, { message: 'Method Not Allowed' });
    }
    const problem = await replayBodyProblem(request);
    if (problem !== undefined) {
      return sendJson(response, problem.status, { message: problem.message });
    }
    const [status, body] = await action.run(route, url.searchParams, options);
    return sendJson(response, status, body);
  }
  request.resume();
  if (method !== 'GET' && method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return sendJson(response, 405, { message: 'Method Not Allowed' });
  }
  const read = READS.find(({ pattern }) => pattern.test(route));
  if (read !== undefined) {
    const [status, body] = await read.run(route, url.searchParams, options);
    return sendJson(response, status, body);
  }
  if (!(await serveAsset(route, response))) sendJson(response, 404, { message: 'Not Found' });
}

/** One route: its path under `/_inspector/`, and its answer (status and JSON). */
interface Route {
  readonly pattern: RegExp;
  readonly run: (
    route: string,
    params: URLSearchParams,
    options: ConsoleOptions,
  ) => Promise<readonly [number, unknown]>;
}

const NO_ARCHIVE = [
  409,
  { message: 'this receiver keeps no archive: deploy it with -c archive=true' },
] as const;
const NO_DEAD_LETTERS = [409, { message: 'this receiver has no dead-letter queue' }] as const;

/** The id in `api/deliveries/<id>…`. */
const idOf = (route: string): string => /^api\/deliveries\/([\w.-]+)/.exec(route)?.[1] ?? '';

/** Runs `run`, answering 400 with its message when the query is not one. */
async function withQuery(
  run: () => Promise<readonly [number, unknown]>,
): Promise<readonly [number, unknown]> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UsageError) return [400, { message: error.message }];
    throw error;
  }
}

const READS: readonly Route[] = [
  {
    pattern: /^api\/source$/,
    run: async (_route, _params, { targetName, archive, queues }) => [
      200,
      {
        source: 'archive',
        target: targetName,
        queue: queues?.queueUrl,
        deadLetterQueue: queues?.deadLetterUrl,
        archive: archive !== undefined,
        note: LIST_NOTE,
      },
    ],
  },
  {
    pattern: /^api\/deliveries$/,
    run: (_route, params, { archive, targetName }) =>
      withQuery(async () => {
        if (archive === undefined) return NO_ARCHIVE;
        const page = await archive.list(parseQuery(params));
        return [200, { source: 'archive', target: targetName, note: LIST_NOTE, ...page }];
      }),
  },
  {
    pattern: /^api\/deliveries\/[\w.-]+$/,
    run: (route, params, { archive }) =>
      withQuery(async () => {
        if (archive === undefined) return NO_ARCHIVE;
        const detail = await archive.detail(idOf(route), parseQuery(params).window);
        return detail === undefined
          ? [404, { message: 'No such delivery in the window (from/to, the last hour by default)' }]
          : [200, detail];
      }),
  },
  {
    pattern: /^api\/dead-letters$/,
    run: async (_route, _params, { queues }) => {
      if (queues === undefined) return NO_DEAD_LETTERS;
      const deadLetters = await listDeadLetters(queues);
      return [200, { queue: queues.deadLetterUrl, deadLetters }];
    },
  },
];

const ACTIONS: readonly Route[] = [
  {
    pattern: /^api\/deliveries\/replay$/,
    run: (_route, params, { archive, queues }) =>
      withQuery(async () => {
        if (archive === undefined) return NO_ARCHIVE;
        const report = await archive.replaySelection(parseQuery(params));
        return [200, { queue: queues?.queueUrl, ...report }];
      }),
  },
  {
    pattern: /^api\/deliveries\/[\w.-]+\/replay$/,
    run: (route, params, { archive, queues }) =>
      withQuery(async () => {
        if (archive === undefined) return NO_ARCHIVE;
        const id = idOf(route);
        const outcome = await archive.replay(id, parseQuery(params).window);
        if (outcome === undefined) {
          return [
            404,
            { message: 'No such delivery in the window (from/to, the last hour by default)' },
          ];
        }
        if ('notReplayable' in outcome) return [409, { message: outcome.notReplayable }];
        if (!outcome.sent) {
          return [422, { message: `the queue refused it: ${outcome.reason}`, sent: false }];
        }
        return [200, { replayOf: id, sent: true, queue: queues?.queueUrl }];
      }),
  },
  {
    pattern: /^api\/dead-letters\/redrive$/,
    run: async (_route, _params, { queues }) => {
      if (queues === undefined) return NO_DEAD_LETTERS;
      return [200, await redriveDeadLetters(queues)];
    },
  },
];

/** A failure as the page may show it: its kind and message, never a stack. */
function failureText(error: unknown): string {
  const { name, message } = error as Error;
  return `${name}: ${message}`;
}
