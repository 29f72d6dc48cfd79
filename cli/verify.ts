/**
 * `npm run verify`: checks a `Service-Signature` header against a body and a key, exactly as the
 * receiver does, and explains a failure. The answer to "why does my signature not match?".
 * @module
 */

import { isUtf8 } from 'node:buffer';
import { resolve } from 'node:path';
import { readFileOption, unixSecondsNow, wholeSecondsOption } from '../devkit/cli-options.js';
import {
  diagnoseSignature,
  MAX_DIAGNOSED_BODY_BYTES,
  MAX_DIAGNOSED_DEPTH,
} from '../devkit/diagnose-signature.js';
import { DOTENV_FILE, withDotEnvWebhookSecret } from '../devkit/dotenv.js';
import { EXIT_STATUS, EXIT_STATUS_USAGE } from '../devkit/exit-status.js';
import {
  KEY_OPTIONS_USAGE,
  KEY_SOURCES_USAGE,
  type KeyOption,
  keyOption,
  refuseKeyArguments,
  resolveKeyOption,
  type SigningKey,
} from '../devkit/signing-key.js';
import {
  isEntryPoint,
  parseToolArgs,
  processIo,
  runTool,
  type ToolIo,
  UsageError,
} from '../devkit/tool-io.js';
import { DEFAULT_TOLERANCE_SECONDS, verifySignature } from '../lambda/core/verify-signature.js';
import type { PayloadFailureReason } from '../lambda/receiver/decision/read-payload.js';

const USAGE = `Usage: WEBHOOK_SECRET=<key> npm run --silent verify -- --header '<value>' --body-file PATH
         [--now SECONDS] [--tolerance SECONDS] [--secret-file PATH | --secret-id ID | --endpoint NAME]

Checks a Service-Signature header value against the exact body bytes, as the receiver does.

  --header VALUE       the Service-Signature value: t=<Unix seconds>,signature=<64 hex>
  --body-file PATH     the request body exactly as received
  --now SECONDS        the time to check at, in Unix seconds (default: now)
  --tolerance SECONDS  how far t may be from --now, either way (default ${DEFAULT_TOLERANCE_SECONDS})
${KEY_OPTIONS_USAGE}
  --help               show this help

${KEY_SOURCES_USAGE}
Hints describe a key by its length and the first 8 hex digits of its SHA-256, never by its value.
When the signature does not match, hints say what would have made it match (another clock, the
body as re-serialized, the key with whitespace); the call stays invalid. A body above
${MAX_DIAGNOSED_BODY_BYTES} bytes or nested deeper than ${MAX_DIAGNOSED_DEPTH} levels gets "no diagnosis:" and why instead.

Prints "valid" and the form that matched, or "invalid: <reason>" and hints (exit 1).
${EXIT_STATUS_USAGE}`;

interface VerifyOptions {
  readonly header: string;
  readonly body: Buffer;
  readonly key: KeyOption;
  readonly now: number;
  readonly tolerance: number;
}

/** `npm run verify -- <args>` against `io`; resolves with the exit status. */
export function main(args: readonly string[], io: ToolIo): Promise<number> {
  return runTool(
    io,
    { name: 'verify', usage: USAGE },
    () => parseOptions(args, io),
    async (options) => verify({ ...options, key: await resolveKeyOption(options.key, io) }, io),
  );
}

function verify(options: VerifyOptions & { readonly key: SigningKey }, io: ToolIo): number {
  const { header, body, key, now, tolerance } = options;
  const result = verifySignature({
    header,
    body,
    keys: [key.key],
    now,
    toleranceSeconds: tolerance,
  });
  if (result.ok && !isUtf8(body)) {
    // The signature covers the text decoded with U+FFFD for the bad bytes; the receiver refuses
    // the bytes themselves after verifying.
    const reason: PayloadFailureReason = 'body_not_utf8';
    io.out(`invalid: ${reason}`);
    io.out(
      `hint: the signature matches, but the body is not valid UTF-8: the receiver answers such a call 400 ${reason}`,
    );
    return EXIT_STATUS.refused;
  }
  if (result.ok) {
    io.out(`valid (form: ${result.form})`);
    return EXIT_STATUS.ok;
  }
  io.out(`invalid: ${result.reason}`);
  const diagnosis = diagnoseSignature({
    header,
    body,
    key,
    now,
    reason: result.reason,
    timestamp: result.timestamp,
  });
  if (!diagnosis.ok) io.out(`no diagnosis: ${diagnosis.why}`);
  else for (const hint of diagnosis.hints) io.out(`hint: ${hint}`);
  return EXIT_STATUS.refused;
}

async function parseOptions(args: readonly string[], io: ToolIo): Promise<VerifyOptions | 'help'> {
  refuseKeyArguments(args);
  const values = parseToolArgs(args, {
    header: { type: 'string' },
    'body-file': { type: 'string' },
    now: { type: 'string' },
    tolerance: { type: 'string' },
    'secret-file': { type: 'string' },
    'secret-id': { type: 'string' },
    endpoint: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  if (values.header === undefined) throw new UsageError('--header is required');
  return {
    header: values.header,
    body: await readFileOption('--body-file', values['body-file'], io.cwd),
    key: await keyOption(values, {
      cwd: io.cwd,
      projectDir: io.projectDir,
      env: await withDotEnvWebhookSecret(io.env, resolve(io.projectDir, DOTENV_FILE)),
    }),
    now: wholeSecondsOption('--now', values.now, unixSecondsNow()),
    tolerance: wholeSecondsOption('--tolerance', values.tolerance, DEFAULT_TOLERANCE_SECONDS),
  };
}

if (isEntryPoint(import.meta.url))
  process.exitCode = await main(process.argv.slice(2), processIo());
