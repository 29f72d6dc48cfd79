/**
 * `npm start`: the whole receiver on this machine, no AWS account needed. An embedded SQS-compatible
 * queue, and the production Lambda handler behind a local HTTP endpoint.
 * @module
 */
import { resolve } from 'node:path';
import { parseToolArgs, processIo, runTool } from '../cli/lib/tool-io.js';
import { DOTENV_FILE } from './dotenv.js';
import { type LocalReceiver, startLocalReceiver } from './local-receiver.js';
import { watchParents } from './parent-watch.js';
import { readStartConfig, type StartConfig } from './start-config.js';

const USAGE = `Usage: npm start [-- --fresh]

Runs the webhook receiver locally: an embedded SQS queue (webhook-events, with the dead-letter
queue webhook-events-dlq) and an HTTP endpoint POST /webhook that calls the production handler.
Queued messages are kept on disk (.local/queues) and are there again at the next start.

  --fresh          start with empty queues (deletes the messages kept from earlier runs)
  --help           show this help

Environment (also read from .env for WEBHOOK_SECRET):
  PORT             port of the webhook endpoint (default 3000; 0 = any free port)
  HOST             interface of the webhook endpoint (default 127.0.0.1)
  LOCAL_SQS_PORT   port of the embedded queue, always on 127.0.0.1 (default 9324; 0 = any free port)
  INSPECTOR        the delivery inspector at /_inspector: unset = served on loopback only,
                   'on' = served whatever HOST is, 'off' = not served
  LOCAL_STATE_DIR  directory of the queued messages (default .local/queues)
  WEBHOOK_SECRET   signing key; when neither the environment nor .env has one, a key is generated
                   and saved to .env
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
      onClientGone: (line) => console.error(`Client disconnected: ${line}`),
    });
  } catch (error) {
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

function banner(receiver: LocalReceiver, config: StartOptions, dotEnvPath: string): string {
  const { webhook, queues, key } = receiver;
  const { host } = config;
  const lines: string[] = [];
  if (key.source === 'generated') {
    lines.push(
      `Generated a signing key and saved it to ${dotEnvPath} (keep it private):`,
      `  WEBHOOK_SECRET=${key.secret}`,
      '',
    );
  }
  for (const name of receiver.ignored) {
    lines.push(`Ignoring ${name}: the local run signs and verifies with WEBHOOK_SECRET.`);
  }
  const keyOrigin = {
    environment: 'WEBHOOK_SECRET from the environment',
    dotenv: `WEBHOOK_SECRET from ${dotEnvPath}`,
    generated: `WEBHOOK_SECRET from ${dotEnvPath}`,
  }[key.source];
  lines.push(
    'Local webhook receiver is ready.',
    `  Webhook URL:  ${webhook.url}`,
    `  Queue URL:    ${queues.queueUrl}`,
    `  DLQ URL:      ${queues.dlqUrl}`,
    `  Key:          ${keyOrigin}`,
    ...(receiver.inspectorUrl === undefined ? [] : [`  Inspector:    ${receiver.inspectorUrl}`]),
    `  Messages:     ${describeRestored(queues.restored, config)}`,
    '',
    'Send a signed test booking (in another terminal):',
    `  npm run send -- --url ${webhook.url}`,
    'Then read what arrived in the queue:',
    `  npm run consume -- --queue-url ${queues.queueUrl}`,
  );
  if (key.source === 'environment') {
    lines.push('(send signs with WEBHOOK_SECRET: export the same value in that terminal)');
  }
  if (!['127.0.0.1', '::1', 'localhost'].includes(host)) {
    lines.push(
      `HOST=${host}: the webhook endpoint is reachable from other machines (the queue stays on 127.0.0.1).`,
    );
  }
  lines.push('', 'Press Ctrl-C to stop.');
  return lines.join('\n');
}

/** One clear line for the failures a user can fix: a port in use, a bad receiver setting. */
function describeStartFailure(error: unknown, config: StartConfig): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    const port = (error as { port?: number }).port;
    const variable = port === config.localSqsPort ? 'LOCAL_SQS_PORT' : 'PORT';
    const problem = code === 'EADDRINUSE' ? 'is already in use' : 'may not be opened by this user';
    return `Port ${port} ${problem}: stop the other process or choose another port with ${variable}=<port> (0 = any free port)`;
  }
  return `Could not start the local receiver: ${error instanceof Error ? error.message : String(error)}`;
}

function describeRestored(restored: number, config: StartOptions): string {
  if (config.fresh) return `started empty (--fresh); kept in ${config.stateDir}`;
  const earlier = restored === 1 ? '1 message' : `${restored} messages`;
  return `${earlier} from earlier runs; kept in ${config.stateDir} (npm start -- --fresh empties it)`;
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
  () => {
    const { help, fresh } = parseToolArgs(process.argv.slice(2), {
      fresh: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    });
    return help ? 'help' : { ...readStartConfig(io.env), fresh };
  },
  run,
);
// Exit explicitly: the SDK's keep-alive agents and queue timers must not keep a stopped server alive.
process.exit(status);
