import { describe, expect, it } from 'vitest';
import { endpointNameFromPath, requestPath } from '../../../lambda/receiver/endpoints.js';
import { FRONT_DOORS } from '../../support/api-gateway-events.js';

describe('Function: endpointNameFromPath', () => {
  it.each([
    ['/webhook/eu', 'eu'],
    ['/prod/webhook/eu-west-1', 'eu-west-1'],
    ['/bookings/v2/webhook/us', 'us'],
  ])('reads the endpoint of %s as the last segment after /webhook/', (path, name) => {
    // Act
    const endpoint = endpointNameFromPath(path);

    // Assess
    expect(endpoint).toBe(name);
  });

  it.each(['/webhook', '/webhook/', '/webhook/eu/', '/webhook/eu/extra', '/mywebhook/eu', '/', ''])(
    'names no endpoint for %j',
    (path) => {
      // Act
      const endpoint = endpointNameFromPath(path);

      // Assess
      expect(endpoint).toBeUndefined();
    },
  );
});

describe('Function: requestPath', () => {
  it.each(FRONT_DOORS)('reads the path AWS documents for a $name event', ({ event }) => {
    // Act
    const path = requestPath(event({ path: '/stage/webhook/eu' }));

    // Assess
    expect(path).toBe('/stage/webhook/eu');
  });
});
