import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../../lambda/core/index.js';
import type { DeliverySummary } from '../../../local/inspector/delivery.js';
import type { LocalReceiver } from '../../../local/local-receiver.js';
import { bookingPayload } from '../../support/booking.js';
import { startLocalReceiverInProcess } from '../../support/local-receiver.js';
import { rawRequest } from '../../support/raw-request.js';
import { scratchDir } from '../../support/scratch-dir.js';

const KEY = 'inspector-on-key-3f1a9c2e';
const dir = scratchDir('inspector-on');

/** A body someone on the network posted to /webhook, with a made-up signature. */
const FORGED = JSON.stringify(bookingPayload({ source: 'forged' }));
const MADE_UP_SIGNATURE = 't=1716000000,v1=00';

/**
 * One of this machine's IPv4 addresses that is not loopback: a connection to it comes from that
 * address, as one from another machine of the network comes from its own.
 */
function networkAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((candidate) => candidate?.family === 'IPv4' && !candidate.internal)?.address;
  if (address === undefined) {
    throw new Error('this machine has no IPv4 address besides loopback to call the inspector on');
  }
  return address;
}

/** Sends one request as given (`Host` included); resolves with its status and JSON body. */
async function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: unknown }> {
  const answer = await rawRequest(url, options);
  return { status: answer.status, body: JSON.parse(answer.body) };
}

describe('Function: the inspector with INSPECTOR=on and HOST=0.0.0.0', () => {
  let receiver: LocalReceiver;
  /** The server as another machine reaches it: `http://<network address>:<port>`. */
  let fromNetwork: string;
  /** The server as this machine reaches it: `http://127.0.0.1:<port>`. */
  let fromHere: string;

  beforeAll(async () => {
    const address = networkAddress();
    receiver = await startLocalReceiverInProcess(KEY, join(dir(), 'receiver'), {
      inspector: 'on',
      host: '0.0.0.0',
    });
    fromNetwork = `http://${address}:${receiver.webhook.port}`;
    fromHere = `http://127.0.0.1:${receiver.webhook.port}`;
  });

  afterAll(async () => {
    await receiver?.close();
  });

  /** Posts the forged body to /webhook from `origin`; resolves with the delivery's id. */
  const postForged = async (origin: string): Promise<string> => {
    const response = await fetch(`${origin}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-signature': MADE_UP_SIGNATURE },
      body: FORGED,
    });
    await response.arrayBuffer();
    return response.headers.get('x-amzn-requestid') ?? '';
  };
  /** Posts a call the local key signed an hour ago (stale but genuine) from `origin`. */
  const postStale = async (origin: string): Promise<string> => {
    const body = JSON.stringify(bookingPayload({ source: 'stale' }));
    const response = await fetch(`${origin}/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'service-signature': signPayload(body, KEY, Math.floor(Date.now() / 1000) - 3_600),
      },
      body,
    });
    await response.arrayBuffer();
    return response.headers.get('x-amzn-requestid') ?? '';
  };
  const replaysOf = async (id: string): Promise<DeliverySummary[]> => {
    const { body } = await send(`${fromHere}/_inspector/api/deliveries`);
    const { deliveries } = body as { deliveries: DeliverySummary[] };
    return deliveries.filter((delivery) => delivery.replayOf === id);
  };

  it('answers another machine that addresses it by IP address, and replays exactly for it', async () => {
    // Prepare
    const id = await postForged(fromNetwork);

    // Act
    const listed = await send(`${fromNetwork}/_inspector/api/deliveries`);
    const exact = await send(`${fromNetwork}/_inspector/api/deliveries/${id}/replay`, {
      method: 'POST',
    });

    // Assess
    expect(listed.status).toBe(200);
    expect(exact).toMatchObject({ status: 200, body: { status: 401, replayOf: id } });
  });

  it('refuses a replay with a fresh signature asked from another machine, and signs nothing', async () => {
    // Prepare
    const id = await postForged(fromNetwork);

    // Act
    const fresh = await send(`${fromNetwork}/_inspector/api/deliveries/${id}/replay?fresh=1`, {
      method: 'POST',
    });
    const replays = await replaysOf(id);

    // Assess
    expect(fresh).toEqual({
      status: 403,
      body: { message: expect.stringContaining('only this machine may ask for one') },
    });
    expect(replays).toEqual([]);
  });

  it("refuses, even to this machine, to sign afresh a call another machine posted, and replays a call of this machine's", async () => {
    // Prepare
    const fromThere = await postForged(fromNetwork);
    const fromHereId = await postStale(fromHere);

    // Act
    const refused = await send(
      `${fromHere}/_inspector/api/deliveries/${fromThere}/replay?fresh=1`,
      { method: 'POST' },
    );
    const detail = await send(`${fromHere}/_inspector/api/deliveries/${fromThere}`);
    const replays = await replaysOf(fromThere);
    const signed = await send(
      `${fromHere}/_inspector/api/deliveries/${fromHereId}/replay?fresh=1`,
      { method: 'POST' },
    );

    // Assess: one click must not sign a body someone else posted
    expect(refused).toEqual({
      status: 403,
      body: { message: expect.stringMatching(/^another machine \(.+\) sent this call/) },
    });
    expect(detail.body).toMatchObject({
      freshSignatureRefusal: expect.stringMatching(/^another machine /),
    });
    expect(replays).toEqual([]);
    expect(signed).toMatchObject({
      status: 200,
      body: { status: 200, delivery: { reason: 'queued', replayOf: fromHereId } },
    });
  });

  it('refuses a page that reaches it through DNS rebinding (Host rebind.example): no list, no replay', async () => {
    // Prepare: the page's own origin, which a rebound name makes the server's
    const id = await postForged(fromHere);
    const rebound = `rebind.example:${receiver.webhook.port}`;
    const headers = { host: rebound, origin: `http://${rebound}` };

    // Act
    const listed = await send(`${fromHere}/_inspector/api/deliveries`, { headers });
    const fresh = await send(`${fromHere}/_inspector/api/deliveries/${id}/replay?fresh=1`, {
      method: 'POST',
      headers,
    });
    const replays = await replaysOf(id);

    // Assess
    expect(listed).toEqual({
      status: 403,
      body: { message: expect.stringContaining('not to a host name') },
    });
    expect(fresh.status).toBe(403);
    expect(replays).toEqual([]);
  });
});
