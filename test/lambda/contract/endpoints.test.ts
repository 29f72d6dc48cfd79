import { describe, expect, it } from 'vitest';
import {
  endpointContextKey,
  endpointIdSuffix,
  endpointKeyVariable,
  endpointOutputKey,
  isEndpointName,
  parseEndpointContextKey,
  STACK_OUTPUTS,
  splitList,
  webhookPath,
} from '../../../lambda/contract/endpoints.js';

describe('Module: the receiver contract for endpoints', () => {
  it('maps one endpoint name to its path, outputs, context key and local variable', () => {
    // Act
    const name = 'eu-west-2';

    // Assess
    expect(webhookPath(name)).toBe('/webhook/eu-west-2');
    expect(endpointIdSuffix(name)).toBe('EuWest2');
    expect(endpointOutputKey(STACK_OUTPUTS.webhookUrl, name)).toBe('WebhookUrlEuWest2');
    expect(endpointOutputKey(STACK_OUTPUTS.secretArn, name)).toBe('SecretArnEuWest2');
    expect(endpointContextKey('secretArn', name)).toBe('secretArn.eu-west-2');
    expect(endpointContextKey('secretKmsKeyArn', name)).toBe('secretKmsKeyArn.eu-west-2');
    expect(endpointKeyVariable(name)).toBe('WEBHOOK_SECRET_EU_WEST_2');
  });

  it.each([
    ['secretArn.eu-west-2', { prop: 'secretArn', name: 'eu-west-2' }],
    ['secretKmsKeyArn.eu', { prop: 'secretKmsKeyArn', name: 'eu' }],
    ['secretArn', undefined],
    ['secretJsonField.eu', undefined],
  ])('reads context key %j as a per-endpoint key: %j', (key, named) => {
    expect(parseEndpointContextKey(key)).toEqual(named);
  });

  it('gives the single endpoint the path /webhook', () => {
    expect(webhookPath()).toBe('/webhook');
  });

  it.each([
    ['eu', true],
    ['a'.repeat(32), true],
    ['a'.repeat(33), false],
    ['', false],
    ['EU', false],
    ['eu_west', false],
    ['eu/west', false],
  ])('takes %j as an endpoint name: %s', (name, valid) => {
    expect(isEndpointName(name)).toBe(valid);
  });

  it('splits a list at commas, trimmed, and keeps empty entries for the setting to refuse', () => {
    expect(splitList(' eu , us')).toEqual(['eu', 'us']);
    expect(splitList('eu,,us,')).toEqual(['eu', '', 'us', '']);
  });
});
