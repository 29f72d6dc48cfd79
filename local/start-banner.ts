/**
 * What `npm start` prints once it is ready: where each part listens, which key signs, what the
 * queues kept, and the next commands to run. Lines are only ever added: the README and the docs
 * quote the banner, and tests read values from its rows.
 * @module
 */
import { LOOPBACK } from '../devkit/local-run.js';
import { ALLOWED_SOURCE_IPS } from '../lambda/contract/environment.js';
import { SOURCE_NOT_ALLOWED } from '../lambda/contract/source-allowlist.js';
import type { LocalArchive } from './local-archive.js';
import type { LocalQueues } from './local-queues.js';
import type { LocalEndpoint, LocalReceiver } from './local-receiver.js';
import { networkExposureWarnings, type StartConfig } from './start-config.js';

/** What the banner reads of a started receiver. */
export type BannerReceiver = Pick<
  LocalReceiver,
  'endpoints' | 'inspectorUrl' | 'ignored' | 'allowedSources'
> & {
  readonly queues: Pick<LocalQueues, 'queueUrl' | 'dlqUrl' | 'restored' | 'discarded'>;
  readonly archive: Pick<LocalArchive, 'endpoint' | 'bucket'>;
};

/** `npm start`'s settings the banner names: the environment's, plus `--fresh`. */
export type BannerConfig = Pick<StartConfig, 'endpoints' | 'inspector' | 'host' | 'stateDir'> & {
  readonly fresh: boolean;
};

/**
 * The ready banner, one string of lines.
 *
 * @param receiver - the started receiver
 * @param config - the settings it was started with
 * @param dotEnvPath - the dotenv file keys are read from and generated into
 */
export function banner(receiver: BannerReceiver, config: BannerConfig, dotEnvPath: string): string {
  const { queues, endpoints } = receiver;
  const named = config.endpoints !== undefined;
  const lines: string[] = [];
  const generated = endpoints.filter(({ key }) => key.source === 'generated');
  if (generated.length > 0) {
    // The key itself stays in the file: a terminal is scrolled back, shared and recorded.
    const variables = generated.map(({ key }) => key.variable).join(', ');
    lines.push(
      `Generated ${generated.length === 1 ? 'a signing key' : 'signing keys'} (${variables}) and saved ${generated.length === 1 ? 'it' : 'them'} to ${dotEnvPath}, readable by you only; the tools read ${generated.length === 1 ? 'it' : 'them'} there.`,
      '',
    );
  }
  const localKeys = named ? 'WEBHOOK_SECRET_<NAME> per endpoint of ENDPOINTS' : 'WEBHOOK_SECRET';
  for (const name of receiver.ignored) {
    lines.push(`Ignoring ${name}: the local run signs and verifies with ${localKeys}.`);
  }
  const keyOrigin = ({ key }: LocalEndpoint): string =>
    `${key.variable} from ${key.source === 'environment' ? 'the environment' : dotEnvPath}`;
  lines.push(
    'Local webhook receiver is ready.',
    ...endpoints.map((endpoint) =>
      endpoint.name === undefined
        ? row('Webhook URL', endpoint.url)
        : row(`Endpoint ${endpoint.name}`, `${endpoint.url}  (key ${keyOrigin(endpoint)})`),
    ),
    ...allowlistRows(receiver.allowedSources),
    row('Queue URL', queues.queueUrl),
    row('DLQ URL', queues.dlqUrl),
    row(
      'Archive',
      `${receiver.archive.endpoint}/${receiver.archive.bucket} (every answered call; personal data)`,
    ),
    ...(named ? [] : endpoints.map((endpoint) => row('Key', keyOrigin(endpoint)))),
    row('Inspector', receiver.inspectorUrl ?? inspectorOff(config)),
    row('Messages', describeRestored(queues.restored, config)),
    ...(config.fresh ? [row('Discarded', describeDiscarded(queues.discarded))] : []),
    '',
    'Send a signed test booking (in another terminal):',
    ...endpoints.map(({ name, url }) =>
      name === undefined
        ? `  npm run send -- --url ${url}`
        : `  npm run send -- --endpoint ${name} --url ${url}`,
    ),
    'Then read what arrived in the queue:',
    `  npm run consume -- --queue-url ${queues.queueUrl}`,
  );
  const exported = endpoints.filter(({ key }) => key.source === 'environment');
  if (exported.length > 0) {
    const variables = exported.map(({ key }) => key.variable).join(', ');
    lines.push(`(send signs with ${variables}: export the same value in that terminal)`);
  }
  lines.push(...networkExposureWarnings(config), '', 'Press Ctrl-C to stop.');
  return lines.join('\n');
}

/** One aligned line of the banner's list, e.g. `  Queue URL:    http://…`. */
function row(label: string, value: string): string {
  return `  ${`${label}:`.padEnd(13)} ${value}`;
}

/**
 * The allowlist's row when `ALLOWED_SOURCE_IPS` is set: which addresses get in, and whether this
 * machine's own calls (the tools send from 127.0.0.1) are among them.
 */
function allowlistRows(allowed: BannerReceiver['allowedSources']): string[] {
  if (allowed === undefined) return [];
  const outside = allowed.allows(LOOPBACK)
    ? ''
    : `, this machine's own calls from ${LOOPBACK} included`;
  return [
    row(
      'Allowlist',
      `${allowed.ranges.join(', ')} only (${ALLOWED_SOURCE_IPS}): calls from other addresses are answered 403 ${SOURCE_NOT_ALLOWED}${outside}`,
    ),
  ];
}

/** Why the inspector is not served, and what serves it. */
function inspectorOff(config: BannerConfig): string {
  if (config.inspector === 'off') return 'off (INSPECTOR=off)';
  return `off: HOST=${config.host} is not loopback (INSPECTOR=on serves it there too)`;
}

function describeRestored(restored: number, config: BannerConfig): string {
  if (config.fresh) return `started empty (--fresh); kept in ${config.stateDir}`;
  return `${messages(restored)} from earlier runs; kept in ${config.stateDir} (npm start -- --fresh empties it)`;
}

function describeDiscarded(discarded: number): string {
  return `${messages(discarded)} from earlier runs (--fresh), dead-letter queue included`;
}

function messages(count: number): string {
  return count === 1 ? '1 message' : `${count} messages`;
}
