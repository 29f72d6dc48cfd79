import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RECEIVER_TIMEOUT_SECONDS } from '../lambda/contract/settings.js';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { LOCAL_PORTS } from './local-run.js';
import { SDK_NODE_NOTICE_SWITCH } from './tool-io.js';

/** An `npm start` of a tool's own that did not get ready, or printed an unexpected banner. */
export class LocalProcessError extends WebhookReceiverError {}

/** A running `npm start` child: where to send, where to read, and the key it verifies with. */
export interface LocalProcess {
  readonly webhookUrl: string;
  readonly queueUrl: string;
  /** The bucket of its archive, as the banner prints it: `http://127.0.0.1:<port>/<bucket>`. */
  readonly archiveUrl: string;
  /** Its state folder, which holds its archive's credentials. */
  readonly archiveStateDir: string;
  readonly key: string;
  /** The child's last lines of output, for diagnostics when something fails. */
  output(): string;
  /**
   * Stops the child with SIGINT (as Ctrl-C does), SIGKILL if it has not exited within
   * {@link STOP_GRACE_MS}; resolves with its status.
   */
  stop(): Promise<number | null>;
}

/** Options of {@link startLocalProcess}. */
export interface LocalProcessOptions {
  /** The project directory, which holds `local/start.ts`. */
  readonly projectDir: string;
  /** Environment to pass on, minus receiver and AWS settings: the run is a clean first start. */
  readonly env: NodeJS.ProcessEnv;
  /** Receiver settings for the child, e.g. `{ SIGNATURE_TOLERANCE_SECONDS: '300' }`. */
  readonly settings?: Readonly<Record<string, string>>;
  /**
   * How long the child may take to print its ready banner, in milliseconds.
   * @default 60000
   */
  readonly readyTimeoutMs?: number;
  /**
   * Node.js options for the child, before its entry point, e.g. `--cpu-prof` to profile it.
   * @default none
   */
  readonly nodeOptions?: readonly string[];
}

/**
 * Caller settings that must not leak into the child: it gets its own key, ports, queue and state
 * folder (a `LOCAL_STATE_DIR` exported for the user's own `npm start` would hand the child that
 * run's journal, or have it refused by that run's lock).
 */
const NOT_INHERITED =
  /^(WEBHOOK_SECRET|SECRET_ID|ENDPOINT|QUEUE_URL|PORT|HOST|LOCAL_SQS_PORT|LOCAL_S3_PORT|LOCAL_STATE_DIR|AWS_)/;

/**
 * `env` without the receiver and AWS settings of the caller, for a child `npm start` that must be
 * a clean first run (its own key, ports, queue and state folder, never a real account).
 *
 * @param env - the caller's environment
 */
export function inheritedEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !NOT_INHERITED.test(name)));
}

/**
 * How long a stopped child may take to exit before it is killed: npm start answers the calls
 * under way first, for at most the receiver's timeout, then closes its queue and archive.
 */
const STOP_GRACE_MS = (RECEIVER_TIMEOUT_SECONDS + 5) * 1000;

/** Kept short: only the tail matters for diagnostics, and a 5,000-request run logs 5,000 lines. */
const OUTPUT_TAIL_CHARS = 4000;

/**
 * Starts `local/start.ts` as `npm start` runs it (node with tsx), in a scratch directory under `.local/`, on
 * free loopback ports, with a fresh random `WEBHOOK_SECRET`, and waits for its banner. The child is
 * killed if this process exits or is interrupted first, so a run can never leave it behind.
 *
 * @param options - project directory, environment and receiver settings
 * @throws {Error} when the child exits or stays silent before it is ready (it is killed then)
 */
export async function startLocalProcess(options: LocalProcessOptions): Promise<LocalProcess> {
  // Under the checkout's git-ignored .local/: the run's .env and queue journal (its own state
  // folder, whatever the caller's LOCAL_STATE_DIR), removed at stop.
  await mkdir(join(options.projectDir, '.local'), { recursive: true });
  const cwd = await mkdtemp(join(options.projectDir, '.local', 'loadtest-'));
  const stateDir = join(cwd, 'queues');
  const key = randomBytes(32).toString('hex');
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const inherited = inheritedEnvironment(options.env);
  const child = spawn(
    process.execPath,
    [...(options.nodeOptions ?? []), '--import', tsx, join(options.projectDir, 'local/start.ts')],
    {
      cwd,
      env: {
        ...inherited,
        ...options.settings,
        LOCAL_STATE_DIR: stateDir,
        // Any free ports: beside the user's npm start and other runs.
        ...Object.fromEntries(Object.values(LOCAL_PORTS).map(({ variable }) => [variable, '0'])),
        HOST: '127.0.0.1',
        WEBHOOK_SECRET: key,
        [SDK_NODE_NOTICE_SWITCH]: 'true',
        // As npm start runs it: tsx compiles in memory, writing no cache to the system temp folder.
        TSX_DISABLE_CACHE: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const kill = (): void => {
    child.kill('SIGKILL');
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    kill();
    process.kill(process.pid, signal);
  };
  process.once('exit', kill);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const cleanUp = async (): Promise<void> => {
    process.off('exit', kill);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await rm(cwd, { recursive: true, force: true });
  };

  let banner = '';
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString()).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    if (!banner.includes('Press Ctrl-C to stop.')) banner += chunk.toString();
    keep(chunk);
  });
  child.stderr?.on('data', keep);

  try {
    await waitForBanner(child, () => banner, exited, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    kill();
    await exited;
    await cleanUp();
    throw new LocalProcessError(
      `npm start did not get ready: ${(error as Error).message}\n${tail}`,
    );
  }
  return {
    webhookUrl: bannerValue(banner, 'Webhook URL'),
    queueUrl: bannerValue(banner, 'Queue URL'),
    archiveUrl: bannerValue(banner, 'Archive'),
    archiveStateDir: stateDir,
    key,
    output: () => tail,
    stop: async () => {
      const timer = setTimeout(kill, STOP_GRACE_MS);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const code = await exited;
      clearTimeout(timer);
      await cleanUp();
      return code;
    },
  };
}

function waitForBanner(
  child: ChildProcess,
  banner: () => string,
  exited: Promise<number | null>,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new LocalProcessError(`no ready banner within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    const check = (): void => {
      if (!banner().includes('Press Ctrl-C to stop.')) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      resolve();
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new LocalProcessError(`it exited with status ${code}`));
    });
  });
}

/**
 * The first word after `<label>:` in the ready banner of `npm start`, e.g. the URL of
 * `Queue URL:`.
 *
 * @param banner - what `npm start` printed up to its ready line
 * @param label - the banner label, without the colon
 * @throws {LocalProcessError} when the banner has no such label
 */
export function bannerValue(banner: string, label: string): string {
  const value = new RegExp(`${label}:\\s+(\\S+)`).exec(banner)?.[1];
  if (value === undefined)
    throw new LocalProcessError(`npm start printed no '${label}' in:\n${banner}`);
  return value;
}
