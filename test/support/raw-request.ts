import { request } from 'node:http';

/** The answer to a {@link rawRequest}. */
export interface RawResponse {
  readonly status: number;
  readonly type: string | undefined;
  readonly body: string;
}

/**
 * Sends one request over node:http with exactly the headers given, `Host` and `Origin` included
 * (which fetch would set itself or refuse), and resolves with the answer.
 */
export function rawRequest(
  url: string | URL,
  options: {
    readonly method?: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly body?: string;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolveAnswer, reject) => {
    const outgoing = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {} },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () =>
          resolveAnswer({
            status: response.statusCode ?? 0,
            type: response.headers['content-type'],
            body,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
