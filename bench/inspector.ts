import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type LocalProcess, startLocalProcess } from '../devkit/local-process.js';
import { signPayload } from '../lambda/core/index.js';
import { SIGNATURE_HEADER_KEY } from '../lambda/core/signature-header.js';
import { percentile } from './percentile.js';
import type { BenchSection, BenchTable } from './section.js';
import { eventBooked, notes } from './verify.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Below the receiver's default MAX_BODY_BYTES (262,144), as the issue measured. */
const BODY_BYTES = 250_000;
const PAIRS = 301;
const WARM_UP_CALLS = 30;
const WRONG_KEY = 'not-the-endpoint-key-0000000000000';
/** Target: a forged call costs the same with the inspector on as off, within 10%. */
const TARGET_RATIO = 1.1;

/** A booking padded with notes to at most `bytes` (UTF-8), written by `stringify`. */
function paddedBody(bytes: number, stringify: (value: unknown) => string): string {
  const sized = (count: number): string => stringify(eventBooked({ notes: notes(count) }));
  let low = 0;
  let high = 1;
  while (Buffer.byteLength(sized(high)) <= bytes) high *= 2;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (Buffer.byteLength(sized(middle)) <= bytes) low = middle;
    else high = middle;
  }
  return sized(low);
}

const BODIES = [
  {
    name: '250 KB pretty, forged',
    text: paddedBody(BODY_BYTES, (v) => JSON.stringify(v, null, 2)),
  },
  { name: '250 KB compact, forged', text: paddedBody(BODY_BYTES, (v) => JSON.stringify(v)) },
] as const;

/** One `npm start` child and a single kept-alive connection to it, as a sender's client holds. */
interface Target {
  readonly process: LocalProcess;
  readonly agent: Agent;
  readonly url: URL;
}

/** Sends one forged call and resolves with its wall time in milliseconds (it must answer 401). */
function forgedCall(target: Target, body: string): Promise<number> {
  const header = signPayload(body, WRONG_KEY, Math.floor(Date.now() / 1000));
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      target.url,
      {
        method: 'POST',
        agent: target.agent,
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER_KEY]: header },
      },
      (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode !== 401) {
            reject(new Error(`a forged call was answered ${response.statusCode}, not 401`));
            return;
          }
          resolve(Number(process.hrtime.bigint() - started) / 1e6);
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function warmUp(target: Target, body: string): Promise<void> {
  for (let call = 0; call < WARM_UP_CALLS; call++) await forgedCall(target, body);
}

async function startTarget(settings: Readonly<Record<string, string>>): Promise<Target> {
  const child = await startLocalProcess({ projectDir: ROOT, env: process.env, settings });
  return {
    process: child,
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    url: new URL(child.webhookUrl),
  };
}

/**
 * What the delivery inspector costs a forged call: two `npm start` children, one with the
 * inspector (the default on loopback) and one with `INSPECTOR=off`, each sent the same forged
 * 250 KB calls one at a time over one kept-alive connection, in interleaved batches.
 */
export const inspectorSection: BenchSection = {
  name: 'inspector',
  async run(): Promise<BenchTable> {
    const off = await startTarget({ INSPECTOR: 'off' });
    const on = await startTarget({}).catch(async (error: unknown) => {
      await off.process.stop();
      throw error;
    });
    const rows: string[][] = [];
    try {
      for (const body of BODIES) {
        await warmUp(off, body.text);
        await warmUp(on, body.text);
        const offTimes: number[] = [];
        const onTimes: number[] = [];
        const ratios: number[] = [];
        for (let pair = 0; pair < PAIRS; pair++) {
          // Alternate which goes first, so a slow moment on the machine favours neither.
          const offFirst = pair % 2 === 0;
          const first = await forgedCall(offFirst ? off : on, body.text);
          const second = await forgedCall(offFirst ? on : off, body.text);
          const [offTime, onTime] = offFirst ? [first, second] : [second, first];
          offTimes.push(offTime);
          onTimes.push(onTime);
          ratios.push(onTime / offTime);
        }
        rows.push([
          body.name,
          String(Buffer.byteLength(body.text)),
          percentile(offTimes, 0.5).toFixed(2),
          percentile(offTimes, 0.99).toFixed(2),
          percentile(onTimes, 0.5).toFixed(2),
          percentile(onTimes, 0.99).toFixed(2),
          percentile(ratios, 0.5).toFixed(2),
          String(TARGET_RATIO),
        ]);
      }
    } finally {
      on.agent.destroy();
      off.agent.destroy();
      await Promise.all([on.process.stop(), off.process.stop()]);
    }
    return {
      title: 'Inspector on vs off: wall time of a forged 250 KB call through npm start',
      columns: [
        'call',
        'bytes',
        'off median ms',
        'off p99 ms',
        'on median ms',
        'on p99 ms',
        'ratio on/off',
        'target',
      ],
      rows,
      notes: [
        `Two npm start children on loopback, one with INSPECTOR=off (the floor), one with the inspector served (the default); each sent the same calls signed with another key (answered 401 signature_mismatch), one at a time over one kept-alive connection each: ${WARM_UP_CALLS} warm-up calls to each, then ${PAIRS} pairs of calls (one to each, which goes first alternating).`,
        'Ratio = median over pairs of the on call time over the off call time of the same pair, so load from other processes on the shared machine slows both alike.',
        'The inspector records the call after its answer is written, and diagnoses a 401 only when the delivery is opened (page or API), never on the request path.',
      ],
    };
  },
};
