import { describe, expect, it } from 'vitest';
import { endpointsFrom } from '../../devkit/local-run.js';
import { UsageError } from '../../devkit/tool-io.js';
import { endpointKeyVariable } from '../../lambda/contract/endpoints.js';
import { networkExposureWarnings, readStartConfig } from '../../local/start-config.js';

describe('Function: readStartConfig', () => {
  it('defaults to port 3000 on loopback and the queue on 9324', () => {
    // Act
    const config = readStartConfig({ PORT: '', HOST: ' ' }, '/checkout');

    // Assess
    expect(config).toEqual({
      port: 3000,
      host: '127.0.0.1',
      localSqsPort: 9324,
      localS3Port: 9325,
      inspector: 'auto',
      stateDir: '/checkout/.local/queues',
    });
  });

  it('reads PORT, HOST, LOCAL_SQS_PORT and LOCAL_STATE_DIR, including 0 for any free port', () => {
    // Act
    const config = readStartConfig(
      { PORT: '0', HOST: '0.0.0.0', LOCAL_SQS_PORT: ' 9400 ', LOCAL_STATE_DIR: 'state' },
      '/checkout',
    );

    // Assess
    expect(config).toEqual({
      port: 0,
      host: '0.0.0.0',
      localSqsPort: 9400,
      localS3Port: 9325,
      inspector: 'auto',
      stateDir: '/checkout/state',
    });
  });

  it.each([
    ['PORT', '65536'],
    ['PORT', 'http'],
    ['LOCAL_SQS_PORT', '-1'],
    ['LOCAL_SQS_PORT', '93 24'],
  ])('rejects %s=%s with a usage error naming the variable', (name, value) => {
    // Act
    const read = (): unknown => readStartConfig({ [name]: value });

    // Assess
    expect(read).toThrow(UsageError);
    expect(read).toThrow(`${name} must be a port number from 0 to 65535, got '${value.trim()}'`);
  });

  it.each([
    [{ PORT: '9600', LOCAL_SQS_PORT: '9600' }, 'PORT=9600 and LOCAL_SQS_PORT=9600'],
    [
      { LOCAL_SQS_PORT: '9500', LOCAL_S3_PORT: ' 9500 ' },
      'LOCAL_SQS_PORT=9500 and LOCAL_S3_PORT=9500',
    ],
    [{ PORT: '9325' }, 'PORT=9325 and LOCAL_S3_PORT (default 9325)'],
  ])('rejects %j, two parts on one port, with a usage error naming both variables', (env, both) => {
    // Act
    const read = (): unknown => readStartConfig(env);

    // Assess
    expect(read).toThrow(
      new UsageError(`${both} name the same port: give each its own port (0 = any free port)`),
    );
  });

  it('lets every part take any free port (0)', () => {
    // Act
    const config = readStartConfig({ PORT: '0', LOCAL_SQS_PORT: '0', LOCAL_S3_PORT: '0' });

    // Assess
    expect(config).toMatchObject({ port: 0, localSqsPort: 0, localS3Port: 0 });
  });

  it.each([
    ['on', 'on'],
    [' OFF ', 'off'],
    ['', 'auto'],
  ] as const)('reads INSPECTOR=%j as %s', (value, mode) => {
    // Act
    const config = readStartConfig({ INSPECTOR: value });

    // Assess
    expect(config.inspector).toBe(mode);
  });

  it('rejects INSPECTOR=yes with a usage error naming the values', () => {
    // Act
    const read = (): unknown => readStartConfig({ INSPECTOR: 'yes' });

    // Assess
    expect(read).toThrow(UsageError);
    expect(read).toThrow("INSPECTOR must be 'on' or 'off' (unset: loopback only), got 'yes'");
  });
});

describe('Function: endpointsFrom', () => {
  it('reads ENDPOINTS from the environment before .env, trimming each name', () => {
    // Act
    const fromEnv = endpointsFrom({ ENDPOINTS: ' eu , us-west ' }, { ENDPOINTS: 'apac' });
    const fromDotEnv = endpointsFrom({}, { ENDPOINTS: 'apac' });

    // Assess
    expect(fromEnv).toEqual(['eu', 'us-west']);
    expect(fromDotEnv).toEqual(['apac']);
  });

  it('is undefined (the single endpoint /webhook) when unset in both, or blank in the environment whatever .env says', () => {
    // Act
    const unset = endpointsFrom({}, {});
    const blank = endpointsFrom({ ENDPOINTS: ' ' }, { ENDPOINTS: 'eu,us' });

    // Assess
    expect(unset).toBeUndefined();
    expect(blank).toBeUndefined();
  });

  it.each([
    ['an upper-case name', 'eu,US', "ENDPOINTS: endpoint name 'US' must be 1 to 32 characters"],
    ['an empty entry', 'eu,,us', "ENDPOINTS: endpoint name '' must be"],
    ['a name of 33 characters', 'a'.repeat(33), `endpoint name '${'a'.repeat(33)}' must be`],
    ['a name twice', 'eu,us,eu', "ENDPOINTS names endpoint 'eu' twice"],
  ])('refuses %s with a usage error naming it', (_, text, message) => {
    // Act
    const read = () => endpointsFrom({ ENDPOINTS: text }, {});

    // Assess
    expect(read).toThrow(UsageError);
    expect(read).toThrow(message);
  });

  it('is part of the start configuration', () => {
    // Act
    const config = readStartConfig({}, '/checkout', { ENDPOINTS: 'eu,us' });

    // Assess
    expect(config.endpoints).toEqual(['eu', 'us']);
  });
});

describe('Function: endpointKeyVariable', () => {
  it('names the key variable after the endpoint, upper-cased with - as _', () => {
    // Act
    const variables = ['eu', 'eu-west-2'].map(endpointKeyVariable);

    // Assess
    expect(variables).toEqual(['WEBHOOK_SECRET_EU', 'WEBHOOK_SECRET_EU_WEST_2']);
  });
});

describe('Function: networkExposureWarnings', () => {
  it('warns of nothing on loopback, INSPECTOR=on included', () => {
    // Act
    const warnings = networkExposureWarnings({ host: '127.0.0.1', inspector: 'on' });

    // Assess
    expect(warnings).toEqual([]);
  });

  it('warns that the webhook endpoint is reachable when HOST is not loopback', () => {
    // Act
    const warnings = networkExposureWarnings({ host: '0.0.0.0', inspector: 'auto' });

    // Assess
    expect(warnings).toEqual([
      'HOST=0.0.0.0: the webhook endpoint is reachable from other machines (the queue stays on 127.0.0.1).',
    ]);
  });

  it('warns that the inspector is reachable too with INSPECTOR=on, and that fresh signatures stay on this machine', () => {
    // Act
    const warnings = networkExposureWarnings({ host: '0.0.0.0', inspector: 'on' });

    // Assess
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(
      /^INSPECTOR=on: the inspector is reachable from other machines too/,
    );
    expect(warnings[1]).toContain(
      'a replay with a fresh signature is answered to this machine only',
    );
  });
});
