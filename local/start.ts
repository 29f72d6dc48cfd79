/**
 * `npm start`: the whole receiver on this machine, no AWS account needed. An embedded SQS-compatible
 * queue, and the production Lambda handler behind a local HTTP endpoint.
 * @module
 */
import { resolve } from 'node:path';
import { DOTENV_FILE, readDotEnv } from '../devkit/dotenv.js';
import { ToolError } from '../devkit/exit-status.js';
import { LOCAL_PORTS } from '../devkit/local-run.js';
import { parseToolArgs, processIo, runTool } from '../devkit/tool-io.js';
import { type LocalReceiver, startLocalReceiver } from './local-receiver.js';
import { watchParents } from './parent-watch.js';
import { banner } from './start-banner.js';
import { readStartConfig, type StartConfig } from './start-config.js';
import { StateFolderBusyError } from './state-lock.js';

const USAGE = `Usage: npm start [-- --fresh]

Runs the webhook receiver locally: an embedded SQS queue (webhook-events, with the dead-letter
queue webhook-events-dlq) and an HTTP endpoint POST /webhook that calls the production handler
(with ENDPOINTS, one endpoint POST /webhook/<name> per name). Queued messages are kept on disk
(.local/queues) and are there again at the next start.

  --fresh          start with empty queues (deletes the messages kept from earlier runs)
  --help           show this help

Environment (also read from .env for WEBHOOK_SECRET, ENDPOINTS and WEBHOOK_SECRET_<NAME>):
  ${LOCAL_PORTS.webhook.variable}             port of the webhook endpoint (default ${LOCAL_PORTS.webhook.default}; 0 = any free port)
  HOST             interface of the webhook endpoint (default 127.0.0.1)
  ${LOCAL_PORTS.queue.variable}   port of the embedded queue, always on 127.0.0.1 (default ${LOCAL_PORTS.queue.default}; 0 = any free port)
  ${LOCAL_PORTS.archive.variable}    port of the archive (S3, and a Firehose stand-in the receiver writes through),
                   always on 127.0.0.1 (default ${LOCAL_PORTS.archive.default}; 0 = any free port); kept in
                   LOCAL_STATE_DIR/archive, read by npm run replay
  INSPECTOR        the delivery inspector at /_inspector: unset = served on loopback only,
                   'on' = served whatever HOST is (other machines address it by IP address;
                   a replay with a fresh signature is this machine's only), 'off' = not served
  LOCAL_STATE_DIR  directory of the queued messages (default .local/queues); one npm start at a
                   time per directory: a second start on it exits 1 and changes nothing
  WEBHOOK_SECRET   signing key; when neither the environment nor .env has one, a key is generated
                   and saved to .env
  ENDPOINTS        several endpoints, one key each: comma-separated names (1 to 32 characters of
                   lowercase letters, digits and -), e.g. eu,us; each is served at /webhook/<name>
                   and signed with WEBHOOK_SECRET_<NAME> (name upper-cased, - as _), generated
                   into .env when missing
Receiver settings such as SIGNATURE_TOLERANCE_SECONDS or FORWARD_EVENTS are passed through.
Stop with Ctrl-C.`;

/** `npm start`'s settings: the environment's, plus `--fresh`. */
interface StartOptions extends StartConfig {
  readonly fresh: boolean;
}

/** Exit status per way of stopping: 0 when asked to stop, 128 + signal number on a hang-up. */
const EXIT_STATUS = { SIGINT: 0, SIGTERM: 0, SIGHUP: 129, 'parent gone': 1 } as const;

type StopReason = keyof typeof EXIT_STATUS;

/**
 * Runs the local receiver until SIGINT, SIGTERM or SIGHUP, or until the npm process that started
 * it is gone (killed with SIGKILL, it could not pass a signal on); resolves with the exit status.
 */
async function run(config: StartOptions): Promise<number> {
  const dotEnvPath = resolve(DOTENV_FILE);
  let receiver: LocalReceiver;
  try {
    receiver = await startLocalReceiver({
      ...config,
      env: process.env,
      dotEnvPath,
      fresh: config.fresh,
      onHandlerError: (error) => console.error('The handler threw (answered 502):', error),
      onInspectorError: (error) =>
        console.error('The inspector failed (no answer was changed):', error),
      onArchiveError: (error) =>
        console.error(
          'The archive could not write its buffer (its records are kept and tried again):',
          error,
        ),
      onClientGone: (line) => console.error(`Client disconnected: ${line}`),
    });
  } catch (error) {
    // A tool error (a .env line that cannot be read) is reported with its own exit status.
    if (error instanceof ToolError) throw error;
    console.error(describeStartFailure(error, config));
    return 1;
  }
  const stopped = firstStopReason();
  console.log(banner(receiver, config, dotEnvPath));
  const reason = await stopped;
  console.log(
    `\n${reason}: stopping the local receiver (queued messages stay in ${config.stateDir}).`,
  );
  await receiver.close();
  return EXIT_STATUS[reason];
}

/**
 * One clear line for the failures a user can fix: the state folder held by another start, a port
 * in use, a bad receiver setting.
 */
function describeStartFailure(error: unknown, config: StartConfig): string {
  if (error instanceof StateFolderBusyError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    const port = (error as { port?: number }).port;
    const { variable } =
      port === config.localSqsPort
        ? LOCAL_PORTS.queue
        : port === config.localS3Port
          ? LOCAL_PORTS.archive
          : LOCAL_PORTS.webhook;
    const problem = code === 'EADDRINUSE' ? 'is already in use' : 'may not be opened by this user';
    return `Port ${port} ${problem}: stop the other process or choose another port with ${variable}=<port> (0 = any free port)`;
  }
  return `Could not start the local receiver: ${error instanceof Error ? error.message : String(error)}`;
}

/** The first of: a stop signal, or the watch seeing npm (or the shell it ran) gone. */
function firstStopReason(): Promise<StopReason> {
  return new Promise((resolveReason) => {
    // Handlers first: until they are in place a signal would end the process without cleanup.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        watch.stop();
        resolveReason(signal);
      });
    }
    const watch = watchParents(() => resolveReason('parent gone'));
  });
}

const io = processIo();
const status = await runTool(
  io,
  { name: 'start', usage: USAGE },
  async () => {
    const { help, fresh } = parseToolArgs(process.argv.slice(2), {
      fresh: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    });
    if (help) return 'help';
    return {
      ...readStartConfig(io.env, process.cwd(), await readDotEnv(resolve(DOTENV_FILE))),
      fresh,
    };
  },
  run,
);
// Exit explicitly: the SDK's keep-alive agents and queue timers must not keep a stopped server alive.
process.exit(status);
