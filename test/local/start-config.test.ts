import { describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/lib/tool-io.js';
import { readStartConfig } from '../../local/start-config.js';

describe('Function: readStartConfig', () => {
  it('defaults to port 3000 on loopback and the queue on 9324', () => {
    // Act
    const config = readStartConfig({ PORT: '', HOST: ' ' }, '/checkout');

    // Assess
    expect(config).toEqual({
      port: 3000,
      host: '127.0.0.1',
      localSqsPort: 9324,
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
