import { join } from 'node:path';
import { type LocalReceiver, startLocalReceiver } from '../../local/local-receiver.js';
import type { StartConfig } from '../../local/start-config.js';

/** Whose failure a receiver started in process reported: the handler's, or the inspector's. */
export type FailureSource = 'handler' | 'inspector' | 'archive';

/**
 * Starts what `npm start` runs (`startLocalReceiver`: the embedded queue, then the production
 * handler behind HTTP), in this process and on free ports (of 127.0.0.1 unless `HOST` says
 * otherwise), for tests that need a hold on it a child process would not give (its queue's listener, the handler's logs). Like
 * `npm start` it fills in `process.env` (WEBHOOK_SECRET, QUEUE_URL, ...), which the handler reads
 * at cold start. By default a handler or inspector error is rethrown, so it fails the run instead
 * of becoming a 502 or a log line.
 *
 * @param key - the signing key, set as `WEBHOOK_SECRET`
 * @param dir - a directory of the test's own, where the receiver looks for `.env`
 * @param settings - `INSPECTOR` (default: served on loopback, as `npm start` does) and `HOST`
 *   (default `127.0.0.1`)
 * @param onFailure - called instead of rethrowing, for tests that assert on what is reported
 */
export function startLocalReceiverInProcess(
  key: string,
  dir: string,
  { inspector = 'auto', host = '127.0.0.1' }: Partial<Pick<StartConfig, 'inspector' | 'host'>> = {},
  onFailure: (source: FailureSource, error: unknown) => void = (_, error) => {
    throw error;
  },
): Promise<LocalReceiver> {
  process.env.WEBHOOK_SECRET = key;
  return startLocalReceiver({
    port: 0,
    host,
    localSqsPort: 0,
    localS3Port: 0,
    inspector,
    endpoints: undefined,
    env: process.env,
    stateDir: join(dir, 'queues'),
    dotEnvPath: join(dir, '.env'),
    onHandlerError: (error) => onFailure('handler', error),
    onInspectorError: (error) => onFailure('inspector', error),
    onArchiveError: (error) => onFailure('archive', error),
  });
}
