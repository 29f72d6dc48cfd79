import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalReceiver } from '../../../local/local-receiver.js';
import { TEST_KEY } from '../../support/booking.js';
import { startLocalReceiverInProcess } from '../../support/local-receiver.js';

const SCRATCH = join(
  resolve(import.meta.dirname, '../../..'),
  '.local',
  `inspector-off-${process.pid}`,
);

describe('Function: startLocalReceiver with INSPECTOR=off', () => {
  let receiver: LocalReceiver;

  beforeAll(async () => {
    await mkdir(SCRATCH, { recursive: true });
    receiver = await startLocalReceiverInProcess(TEST_KEY, SCRATCH, { inspector: 'off' });
  });

  afterAll(async () => {
    await receiver?.close();
    await rm(SCRATCH, { recursive: true, force: true });
  });

  it('serves no inspector: /_inspector is an unknown path', async () => {
    // Act
    const response = await fetch(new URL('/_inspector/api/deliveries', receiver.webhook.url));

    // Assess
    expect(receiver.inspectorUrl).toBeUndefined();
    expect(response.status).toBe(404);
  });
});
