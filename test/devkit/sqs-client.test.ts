import { describe, expect, it } from 'vitest';
import { isLoopbackUrl, sqsClientFor } from '../../devkit/sqs-client.js';

describe('Function: sqsClientFor', () => {
  it('talks to the origin of a loopback queue URL with placeholder credentials', async () => {
    // Act
    const client = sqsClientFor('http://127.0.0.1:9324/123456789012/webhook-events', {});

    // Assess
    const endpoint = await client.config.endpoint?.();
    expect(`${endpoint?.protocol}//${endpoint?.hostname}:${endpoint?.port}`).toBe(
      'http://127.0.0.1:9324',
    );
    expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'local' });
  });

  it('takes the region from an AWS queue URL when AWS_REGION is not set', async () => {
    // Act
    const client = sqsClientFor(
      'https://sqs.eu-central-1.amazonaws.com/111122223333/webhook-events',
      {},
    );

    // Assess
    expect(await client.config.region()).toBe('eu-central-1');
  });

  it('prefers AWS_REGION over the queue URL', async () => {
    // Act
    const client = sqsClientFor('https://sqs.eu-central-1.amazonaws.com/111122223333/q', {
      AWS_REGION: 'us-west-2',
    });

    // Assess
    expect(await client.config.region()).toBe('us-west-2');
  });
});

describe('Function: isLoopbackUrl', () => {
  it.each([
    ['http://127.0.0.1:9324/123456789012/webhook-events', true],
    ['http://localhost:9324/123456789012/webhook-events', true],
    ['http://[::1]:9324/123456789012/webhook-events', true],
    ['https://sqs.eu-west-1.amazonaws.com/111122223333/webhook-events', false],
  ])('says %s is loopback: %s', (url, expected) => {
    // Act
    const loopback = isLoopbackUrl(url);

    // Assess
    expect(loopback).toBe(expected);
  });
});
