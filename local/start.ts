/**
 * `npm start`: the whole receiver on this machine, no AWS account needed. An embedded SQS-compatible
 * queue, and the production Lambda handler behind a local HTTP endpoint.
 * @module
 */
import { resolve } from 'node:path';
import { parseToolArgs, processIo, runTool } from '../cli/lib/tool-io.js';
import { DOTENV_FILE } from './dotenv.js';
import { type LocalReceiver, startLocalReceiver } from './local-receiver.js';
import { readStartConfig, type StartConfig } from './start-config.js';

const USAGE = `Usage: npm start

Runs the webhook receiver locally: an embedded SQS queue (webhook-events, with the dead-letter
queue webhook-events-dlq) and an HTTP endpoint POST /webhook that calls the production handler.

Environment (also read from .env for WEBHOOK_SECRET):
  PORT             port of the webhook endpoint (default 3000; 0 = any free port)
  HOST             interface of the webhook endpoint (default 127.0.0.1)
  LOCAL_SQS_PORT   port of the embedded queue, always on 127.0.0.1 (default 9324; 0 = any free port)
  INSPECTOR        the delivery inspector at /_inspector: unset = served on loopback only,
                   'on' = served whatever HOST is, 'off' = not served
  WEBHOOK_SECRET   signing key; when neither the environment nor .env has one, a key is generated
                   and saved to .env
Receiver settings such as SIGNATURE_TOLERANCE_SECONDS or FORWARD_EVENTS are passed through.
Stop with Ctrl-C.`;

/** Runs the local receiver until SIGINT/SIGTERM; resolves with the exit status. */
async function run(config: StartConfig): Promise<number> {
  const dotEnvPath = resolve(DOTENV_FILE);
  let receiver: LocalReceiver;
  try {
    receiver = await startLocalReceiver({
      ...config,
      env: process.env,
      dotEnvPath,
      onHandlerError: (error) => console.error('The handler threw (answered 502):', error),
    });
  } catch (error) {
    console.error(describeStartFailure(error, config));
    return 1;
  }
  console.log(banner(receiver, config.host, dotEnvPath));
  const signal = await firstSignal(['SIGINT', 'SIGTERM']);
  console.log(`\n${signal}: stopping the local receiver.`);
  await receiver.close();
  return 0;
}

function banner(receiver: LocalReceiver, host: string, dotEnvPath: string): string {
  const { webhook, queues, key } = receiver;
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

function firstSignal(signals: readonly NodeJS.Signals[]): Promise<NodeJS.Signals> {
  return new Promise((resolveSignal) => {
    for (const signal of signals) process.once(signal, () => resolveSignal(signal));
  });
}

const io = processIo();
const status = await runTool(
  io,
  { name: 'start', usage: USAGE },
  () => {
    const { help } = parseToolArgs(process.argv.slice(2), {
      help: { type: 'boolean', short: 'h' },
    });
    return help ? 'help' : readStartConfig(io.env);
  },
  run,
);
// Exit explicitly: the SDK's keep-alive agents and queue timers must not keep a stopped server alive.
process.exit(status);
