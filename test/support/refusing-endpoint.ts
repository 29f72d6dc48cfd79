import { createServer } from 'node:http';
import { LOOPBACK } from '../../devkit/local-run.js';
import { closeServer, listen } from '../../local/net.js';

/**
 * `http://127.0.0.1:<port>` of a loopback port that was free a moment ago and is closed now, so a
 * client pointed at it gets `ECONNREFUSED` at once: an unreachable dependency (SQS, Secrets
 * Manager) without waiting for a timeout.
 */
export async function refusingEndpoint(): Promise<string> {
  const server = createServer();
  const port = await listen(server, 0, LOOPBACK);
  await closeServer(server);
  return `http://${LOOPBACK}:${port}`;
}
