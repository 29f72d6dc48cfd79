import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach } from 'vitest';
import { buildBookingPayload } from '../../devkit/booking-payload.js';
import { inheritedEnvironment } from '../../devkit/local-process.js';
import { postWebhook, type WebhookResponse } from '../../devkit/post-webhook.js';
import { signPayload } from '../../lambda/core/index.js';

/** Read the ready banner as the loadtest does. */
export { bannerValue } from '../../devkit/local-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const START = join(ROOT, 'local/start.ts');

/** `npm start` as a child process, with what it printed so far. */
export interface StartedProcess {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
}

/**
 * Children still running, killed after each test of a file that started one, even when it
 * failed half-way.
 */
const running = new Set<ChildProcess>();

/**
 * Registers the hook that kills what {@link startProcess} started after each test. Call at
 * module level of a test file that starts processes.
 */
export function killStartedProcessesAfterEach(): void {
  afterEach(() => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/**
 * Runs `local/start.ts` the way `npm start` does (node + tsx), in `cwd` (where it reads and
 * writes `.env`), on free ports, with none of the caller's receiver settings: a clean first run.
 *
 * @param cwd - the working directory, a test's own scratch folder
 * @param env - settings on top, e.g. `ENDPOINTS`
 */
export function startProcess(cwd: string, env: NodeJS.ProcessEnv = {}): StartedProcess {
  const child = spawn(process.execPath, ['--import', TSX, START], {
    cwd,
    env: {
      ...inheritedEnvironment(process.env),
      PORT: '0',
      LOCAL_SQS_PORT: '0',
      LOCAL_S3_PORT: '0',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  running.add(child);
  void exit.then(() => running.delete(child));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

/** Resolves with stdout once the banner is complete; rejects if the process exits first. */
export async function ready(started: StartedProcess): Promise<string> {
  const banner = new Promise<string>((resolveBanner) => {
    const check = (): void => {
      if (started.stdout().includes('Press Ctrl-C to stop.')) resolveBanner(started.stdout());
    };
    started.child.stdout?.on('data', check);
    check();
  });
  const exited = started.exit.then((code) => {
    throw new Error(`start exited with ${code} before it was ready:\n${started.stderr()}`);
  });
  return Promise.race([banner, exited]);
}

/**
 * POSTs a new booking to a started receiver, signed with `key` at the current time as the
 * service would; resolves with the answer.
 *
 * @param url - an endpoint URL from the banner
 * @param key - the key to sign with
 */
export function postSignedBooking(url: string, key: string): Promise<WebhookResponse> {
  const body = buildBookingPayload();
  return postWebhook(url, Buffer.from(body), signPayload(body, key, Math.floor(Date.now() / 1000)));
}
