import { SignatureV4 } from '@smithy/signature-v4';
import type { LocalArchiveCredentials } from '../../devkit/archive-credentials.js';
import { LOCAL_REGION } from '../../devkit/local-run.js';
import { Sha256 } from '../../local/aws-signature.js';

/** What {@link signedHeaderLines} signs. */
export interface RawCall {
  readonly method: string;
  /** The path and query as sent, e.g. `/webhook-archive?list-type=2`. */
  readonly target: string;
  /** `127.0.0.1:<port>` */
  readonly host: string;
  /** Headers sent besides the signature's, e.g. `content-length` (signed too). */
  readonly headers?: Readonly<Record<string, string>>;
  /** @default 's3' */
  readonly service?: string;
}

/**
 * The header lines (`name: value\r\n` each) of a raw call signed as the SDK signs it, with an
 * unsigned payload: for tests that write requests byte by byte (a body declared but held back,
 * `Expect: 100-continue`) to a port that answers only signed calls.
 */
export async function signedHeaderLines(
  call: RawCall,
  credentials: LocalArchiveCredentials,
): Promise<string> {
  const at = call.target.indexOf('?');
  const query = Object.fromEntries(
    new URLSearchParams(at === -1 ? '' : call.target.slice(at + 1)).entries(),
  );
  const signer = new SignatureV4({
    credentials,
    region: LOCAL_REGION,
    service: call.service ?? 's3',
    sha256: Sha256,
    uriEscapePath: (call.service ?? 's3') !== 's3',
  });
  const signed = await signer.sign({
    method: call.method,
    protocol: 'http:',
    hostname: '127.0.0.1',
    path: at === -1 ? call.target : call.target.slice(0, at),
    query,
    headers: { host: call.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...call.headers },
  });
  return Object.entries(signed.headers)
    .filter(([name]) => name !== 'host')
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}
