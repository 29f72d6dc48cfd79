import { type RequestListener, type Server, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/** Listens on `host:port` and resolves with the bound port (useful with port 0), or rejects with the listen error (e.g. EADDRINUSE). */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Stops accepting connections and ends open ones (an SQS long poll or keep-alive socket would
 * otherwise hold it open); resolves once every connection has ended. With `keepBusy`, only idle
 * connections are ended (as `server.close` does): the caller ends the others when their calls
 * are answered (`closeAllConnections`).
 */
export function closeServer(
  server: Server,
  { keepBusy = false }: { readonly keepBusy?: boolean } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    if (!keepBusy) server.closeAllConnections();
  });
}

/**
 * Answers on a connection the HTTP parser has let go of (a request it could not parse, one that
 * ran out of time, a CONNECT) with `{"message": "<reason phrase>"}`, like every other rejection,
 * and closes it; a connection that can no longer be written to is destroyed.
 */
export function endWithJson(socket: Duplex, status: number): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const message = STATUS_CODES[status] ?? 'Error';
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${message}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Answers every CONNECT with 400 and closes the connection: a local server is no proxy, and
 * without this Node drops a CONNECT without a byte of answer.
 */
export function refuseConnect(server: Server): void {
  server.on('connect', (_request, socket: Duplex) => endWithJson(socket, 400));
}

/**
 * Wraps the request listener of a local AWS stand-in so that it never reads a body longer than
 * `maxBytes`. The stand-ins buffer whole request bodies (local-aws-sqs concatenates each chunk
 * onto a new Buffer, quadratic in the body's length: one 32 MiB request held the event loop of
 * `npm start` for 5.5 s), and any process on this machine can reach them. A request must declare
 * its length, as the AWS SDK always does: one declaring more than `maxBytes` is answered 413, a
 * chunked one 411, each with an AWS JSON error in `contentType` and `connection: close`, before a
 * byte of its body is read.
 */
export function limitRequestBodies(
  maxBytes: number,
  contentType: string,
  listener: RequestListener,
): RequestListener {
  return (request, response) => {
    const declared = request.headers['content-length'];
    const chunked = request.headers['transfer-encoding'] !== undefined;
    if (!chunked && (declared === undefined || Number(declared) <= maxBytes)) {
      listener(request, response);
      return;
    }
    const status = chunked ? 411 : 413;
    const message = chunked
      ? 'a request body must declare its Content-Length'
      : `a request body may hold at most ${maxBytes} bytes`;
    // Read and dropped, not buffered, until the connection closes after the answer.
    request.resume();
    response.writeHead(status, { 'content-type': contentType, connection: 'close' });
    response.end(JSON.stringify({ __type: STATUS_CODES[status]?.replaceAll(' ', ''), message }));
  };
}
