import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { freshReplayRefusal, refusalOf } from '../../../local/inspector/access.js';

const addressedTo = (host: string): IncomingMessage => ({ headers: { host } }) as IncomingMessage;
const connectedFrom = (address: string | undefined): IncomingMessage =>
  ({ headers: {}, socket: { remoteAddress: address } }) as IncomingMessage;

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

  it.each([
    '192.168.1.20:3000',
    '192.168.1.20',
    '[fd00::2]:3000',
    '0.0.0.0:3000',
    '127.0.0.1:3000',
    'localhost:3000',
  ])('serves a request addressed to %s when INSPECTOR=on', (host) => {
    // Act
    const refusal = refusalOf(addressedTo(host), 'on', '0.0.0.0');

    // Assess
    expect(refusal).toBeUndefined();
  });

  it.each([
    'rebind.example:3000',
    'rebind.example',
    '192.168.1.20.nip.io:3000',
    '[rebind.example]:3000',
    'fd00::2',
    '',
  ])(
    'refuses a request addressed to %j when INSPECTOR=on, as a page using DNS rebinding sends',
    (host) => {
      // Act
      const refusal = refusalOf(addressedTo(host), 'on', '0.0.0.0');

      // Assess
      expect(refusal).toContain('not to a host name');
    },
  );
});

describe('Function: freshReplayRefusal', () => {
  /** A delivery this machine may have signed afresh. */
  const BOOKING_SERVICE_CALL = { freshSignatureRefusal: undefined };

  it.each(['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1'])(
    'lets a connection from %s, this machine, ask for a fresh signature',
    (address) => {
      // Act
      const refusal = freshReplayRefusal(connectedFrom(address), BOOKING_SERVICE_CALL);

      // Assess
      expect(refusal).toBeUndefined();
    },
  );

  it.each(['192.168.1.20', '::ffff:192.168.1.20', 'fd00::2', undefined])(
    'refuses a fresh signature to a connection from %s',
    (address) => {
      // Act
      const refusal = freshReplayRefusal(connectedFrom(address), BOOKING_SERVICE_CALL);

      // Assess
      expect(refusal).toContain('only this machine');
    },
  );

  it("refuses a fresh signature to this machine for a call the delivery says it is not to sign, with the delivery's reason", () => {
    // Act
    const refusal = freshReplayRefusal(connectedFrom('127.0.0.1'), {
      freshSignatureRefusal: 'a web page (https://attacker.example) sent this call',
    });

    // Assess
    expect(refusal).toBe('a web page (https://attacker.example) sent this call');
  });
});
