/**
 * `npm run sign`: prints the `Service-Signature` value the service would send with a body, for
 * testing a receiver by hand (`curl -H "Service-Signature: $(npm run --silent sign -- ...)"`).
 * @module
 */

import { isUtf8 } from 'node:buffer';
import { resolve } from 'node:path';
import { readFileOption, unixSecondsNow, wholeSecondsOption } from '../devkit/cli-options.js';
import { DOTENV_FILE, withDotEnvWebhookSecret } from '../devkit/dotenv.js';
import { EXIT_STATUS, EXIT_STATUS_USAGE, ToolError } from '../devkit/exit-status.js';
import {
  KEY_OPTIONS_USAGE,
  KEY_SOURCES_USAGE,
  keyOption,
  refuseKeyArguments,
  resolveKeyOption,
} from '../devkit/signing-key.js';
import { isEntryPoint, parseToolArgs, processIo, runTool, type ToolIo } from '../devkit/tool-io.js';
import { BodyNotJsonError, signPayload } from '../lambda/core/index.js';

const USAGE = `Usage: WEBHOOK_SECRET=<key> npm run --silent sign -- --body-file PATH [--t SECONDS]
         [--secret-file PATH | --secret-id ID | --endpoint NAME]

Prints the Service-Signature header value the service would send with this body,
t=<t>,signature=<HMAC-SHA-256 hex of "<t>.<body without whitespace between JSON tokens>">,
and nothing else on stdout.

  --body-file PATH     the JSON body to sign, sent as is
  --t SECONDS          the timestamp to sign at, in Unix seconds (default: now)
${KEY_OPTIONS_USAGE}
  --help               show this help

${KEY_SOURCES_USAGE}

${EXIT_STATUS_USAGE}`;

/** `npm run sign -- <args>` against `io`; resolves with the exit status. */
export function main(args: readonly string[], io: ToolIo): Promise<number> {
  return runTool(
    io,
    { name: 'sign', usage: USAGE },
    async () => {
      refuseKeyArguments(args);
      const values = parseToolArgs(args, {
        'body-file': { type: 'string' },
        t: { type: 'string' },
        'secret-file': { type: 'string' },
        'secret-id': { type: 'string' },
        endpoint: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      });
      if (values.help) return 'help';
      return {
        body: await readFileOption('--body-file', values['body-file'], io.cwd),
        key: await keyOption(values, {
          cwd: io.cwd,
          projectDir: io.projectDir,
          env: await withDotEnvWebhookSecret(io.env, resolve(io.projectDir, DOTENV_FILE)),
        }),
        t: wholeSecondsOption('--t', values.t, unixSecondsNow()),
      };
    },
    async ({ body, key, t }) => {
      const signingKey = await resolveKeyOption(key, io);
      if (!isUtf8(body)) {
        // The receiver answers such a body 400 body_not_utf8, whatever its signature.
        throw new ToolError(
          'the --body-file is not valid UTF-8: the service only signs JSON bodies, which are UTF-8',
          EXIT_STATUS.refused,
        );
      }
      try {
        io.out(signPayload(body, signingKey.key, t));
        return EXIT_STATUS.ok;
      } catch (error) {
        if (!(error instanceof BodyNotJsonError)) throw error;
        throw new ToolError(
          'the --body-file is not a single JSON value: the service only signs JSON bodies',
          EXIT_STATUS.refused,
        );
      }
    },
  );
}

if (isEntryPoint(import.meta.url))
  process.exitCode = await main(process.argv.slice(2), processIo());
