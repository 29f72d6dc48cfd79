import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { refusalOf } from '../../../local/inspector/access.js';

const addressedTo = (host: string): IncomingMessage => ({ headers: { host } }) as IncomingMessage;

describe('Function: refusalOf', () => {
  it.each(['127.0.0.1:3000', 'localhost:3000', '[::1]:3000'])('serves a request to %s', (host) => {
    // Act
    const refusal = refusalOf(addressedTo(host), 'auto', '127.0.0.1');

    // Assess
    expect(refusal).toBeUndefined();
  });

  it('refuses every request when HOST is not loopback, naming INSPECTOR=on', () => {
    // Act
    const refusal = refusalOf(addressedTo('127.0.0.1:3000'), 'auto', '0.0.0.0');

    // Assess
    expect(refusal).toContain('set INSPECTOR=on');
  });

  it('serves any host when INSPECTOR=on', () => {
    // Act
    const refusal = refusalOf(addressedTo('192.168.1.20:3000'), 'on', '0.0.0.0');

    // Assess
    expect(refusal).toBeUndefined();
  });
});
