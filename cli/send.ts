/**
 * `npm run send`: sign a booking webhook the way the service does and POST it to the receiver,
 * local (`npm start`) or deployed (`WebhookUrl` output of the stack).
 * @module
 */

import { resolve } from 'node:path';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import { readFileOption } from '../devkit/cli-options.js';
import { DOTENV_FILE, findWebhookSecret, readDotEnv } from '../devkit/dotenv.js';
import { EXIT_STATUS, EXIT_STATUS_USAGE, NoKeyError, ToolError } from '../devkit/exit-status.js';
import { ENDPOINTS_VARIABLE, endpointsFrom, LOCAL_PORTS, localPort } from '../devkit/local-run.js';
import { withTimeout } from '../devkit/network.js';
import { postWebhook } from '../devkit/post-webhook.js';
import { readEndpointKey, readSecretIdKey, type SigningKey } from '../devkit/signing-key.js';
import { terminalSafe } from '../devkit/terminal-text.js';
import {
  isEntryPoint,
  isHttpUrl,
  parseToolArgs,
  processIo,
  runTool,
  type ToolIo,
  UsageError,
  urlWithoutPassword,
} from '../devkit/tool-io.js';
import { webhookPath } from '../lambda/contract/endpoints.js';
import { BodyNotJsonError, signPayload } from '../lambda/core/index.js';
import { endpointNameFromPath } from '../lambda/receiver/endpoints.js';

const USAGE = `Usage: npm run send -- [--url URL] [--endpoint NAME] [--file payload.json] [--event NAME] [--count N]
         [--secret-id ID]

Signs a webhook call as the booking service does (Service-Signature: t=<now>,signature=<HMAC>)
and POSTs it, printing each response.

  --url URL         receiver URL (default http://127.0.0.1:$${LOCAL_PORTS.webhook.variable}/webhook, ${LOCAL_PORTS.webhook.variable} default ${LOCAL_PORTS.webhook.default});
                    for a deployed stack use its WebhookUrl output
  --endpoint NAME   send to endpoint NAME of npm start's ENDPOINTS: to /webhook/NAME (default
                    http://127.0.0.1:$${LOCAL_PORTS.webhook.variable}/webhook/NAME; a --url must end in /webhook/NAME),
                    signed with its key WEBHOOK_SECRET_<NAME> (environment, then .env);
                    required when ENDPOINTS is set (environment or .env) and --url is not given
  --file PATH       send this file's bytes as the body instead of a generated booking
  --event NAME      event name of the generated booking (default event_booked)
  --count N         send N calls, each a new booking (default 1)
  --secret-id ID    sign with the AWSCURRENT key of this Secrets Manager secret (name or ARN)
                    instead of WEBHOOK_SECRET (environment, then .env); a JSON secret is read
                    like the receiver reads it (its only text field, or SECRET_JSON_FIELD)
  --help            show this help

${EXIT_STATUS_USAGE}`;

interface SendOptions {
  readonly url: string;
  /** `--file` as given, for messages. */
  readonly file: string | undefined;
  /** The bytes of `--file`, read once and sent unchanged on every call. */
  readonly fileBody: Buffer | undefined;
  readonly event: string | undefined;
  readonly count: number;
  readonly secretId: string | undefined;
  /** The key of `--endpoint`, read while parsing. */
  readonly endpointKey: SigningKey | undefined;
}

/**
 * Runs the tool with command-line `args`; resolves with the exit status.
 *
 * @param args - arguments after `--`
 * @param io - streams, environment and working directory
 */
export function main(args: readonly string[], io: ToolIo): Promise<number> {
  return runTool(
    io,
    { name: 'send', usage: USAGE },
    () => parseOptions(args, io),
    (options) => send(options, io),
  );
}

async function send(options: SendOptions, io: ToolIo): Promise<number> {
  const key = options.endpointKey?.key ?? (await loadKey(options.secretId, io));
  let failures = 0;
  for (let i = 1; i <= options.count; i++) {
    const body = options.fileBody ?? Buffer.from(buildBookingPayload(withEvent(options.event)));
    let signature: string;
    try {
      signature = signPayload(body, key, Math.floor(Date.now() / 1000));
    } catch (error) {
      if (!(error instanceof BodyNotJsonError)) throw error;
      throw new ToolError(
        `${options.file} is not a single JSON value: the service only signs JSON bodies`,
        EXIT_STATUS.refused,
      );
    }
    const response = await withTimeout(
      `POST ${urlWithoutPassword(options.url)} failed`,
      io.networkTimeoutMs,
      (signal) => postWebhook(options.url, body, signature, signal),
      { refusedHint: 'is npm start running, and on this port?' },
    );
    if (response.status < 200 || response.status > 299) failures++;
    // The body's event and id (a --file may be a captured call) and the answer are not ours.
    io.out(
      terminalSafe(
        `[${i}/${options.count}] ${describeBody(body)} -> ${response.status} ${response.body}`,
      ),
    );
  }
  if (options.count > 1) io.out(`${options.count - failures} of ${options.count} calls accepted`);
  return failures === 0 ? EXIT_STATUS.ok : EXIT_STATUS.refused;
}

async function parseOptions(args: readonly string[], io: ToolIo): Promise<SendOptions | 'help'> {
  const values = parseToolArgs(args, {
    url: { type: 'string' },
    file: { type: 'string' },
    event: { type: 'string' },
    count: { type: 'string' },
    'secret-id': { type: 'string' },
    endpoint: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const { endpoint } = values;
  if (endpoint !== undefined && values['secret-id'] !== undefined) {
    throw new UsageError(
      "--endpoint signs with the endpoint's local key: give --endpoint or --secret-id, not both",
    );
  }
  if (values.file !== undefined && values.event !== undefined) {
    throw new UsageError(
      '--event applies to the generated booking; edit the event field of --file instead',
    );
  }
  const countText = values.count ?? '1';
  const count = Number(countText);
  if (!/^\d{1,9}$/.test(countText) || count < 1) {
    throw new UsageError(`--count must be a whole number of at least 1, got '${countText}'`);
  }
  if (endpoint === undefined && values.url === undefined) await refuseMissingEndpoint(io);
  const path = webhookPath(endpoint);
  const url = values.url ?? `http://127.0.0.1:${localPort(io.env, 'webhook')}${path}`;
  if (!isHttpUrl(url)) {
    throw new UsageError(`--url must be an http(s) URL, got '${urlWithoutPassword(url)}'`);
  }
  const endpointKey = endpoint === undefined ? undefined : await readEndpointKey(endpoint, io);
  if (endpoint !== undefined && endpointNameFromPath(new URL(url).pathname) !== endpoint) {
    throw new UsageError(
      `--url ${urlWithoutPassword(url)} is not a URL of endpoint '${endpoint}': its path must end in ${webhookPath(endpoint)}`,
    );
  }
  const fileBody =
    values.file === undefined ? undefined : await readFileOption('--file', values.file, io.cwd);
  return {
    url,
    file: values.file,
    fileBody,
    event: values.event,
    count,
    secretId: values['secret-id'],
    endpointKey,
  };
}

function withEvent(event: string | undefined): { event?: string } {
  return event === undefined ? {} : { event };
}

/**
 * With `ENDPOINTS` set, `npm start` serves `/webhook/<name>` only (`/webhook` is 404): a send to
 * the local receiver must name the endpoint.
 *
 * @throws {UsageError} listing the names when `ENDPOINTS` (environment, else `.env`) is set
 */
async function refuseMissingEndpoint(io: ToolIo): Promise<void> {
  const endpoints = endpointsFrom(io.env, await readDotEnv(resolve(io.projectDir, DOTENV_FILE)));
  if (endpoints === undefined) return;
  throw new UsageError(
    `${ENDPOINTS_VARIABLE} lists ${endpoints.join(', ')}, so npm start serves ${webhookPath('<name>')} only: pass --endpoint <name> with one of ${endpoints.join(', ')}`,
  );
}

/**
 * The key to sign with: `--secret-id`'s, else `WEBHOOK_SECRET` (environment, then `.env`).
 *
 * @throws {NoKeyError} when there is none, or as `readSecretIdKey`
 */
async function loadKey(secretId: string | undefined, io: ToolIo): Promise<string> {
  if (secretId !== undefined) return (await readSecretIdKey(secretId, io)).key;
  const found = await findWebhookSecret(io.env, resolve(io.projectDir, DOTENV_FILE));
  if (found) return found.secret;
  throw new NoKeyError(
    'No key to sign with: set WEBHOOK_SECRET, run npm start once (it writes .env), or pass --secret-id ID',
  );
}

/** `booking 123456 (event_booked)` for generated and most real bodies, else the byte count. */
function describeBody(body: Uint8Array): string {
  try {
    const payload = JSON.parse(Buffer.from(body).toString('utf8')) as {
      event?: unknown;
      data?: { id?: unknown };
    };
    if (typeof payload.event === 'string') {
      const id = typeof payload.data?.id === 'string' ? `booking ${payload.data.id} ` : '';
      return `${id}(${payload.event})`;
    }
  } catch {
    // Not JSON: fall through to the size.
  }
  return `${body.byteLength} bytes`;
}

if (isEntryPoint(import.meta.url))
  process.exitCode = await main(process.argv.slice(2), processIo());
