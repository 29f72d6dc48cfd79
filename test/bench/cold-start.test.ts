import { describe, expect, it } from 'vitest';
import { esbuildOptionsFor } from '../../bench/cold-start.js';
import { LAMBDA_BUNDLING, LAMBDA_RUNTIME } from '../../lib/lambda-function.js';

describe('Function: esbuildOptionsFor', () => {
  it('derives the options NodejsFunction passes to esbuild from the construct bundling options', () => {
    // Act
    const options = esbuildOptionsFor(LAMBDA_BUNDLING, LAMBDA_RUNTIME, '/tmp/out');

    // Assess
    expect(options).toMatchObject({
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'esm',
      outfile: '/tmp/out/index.mjs',
      minify: true,
      sourcemap: true,
      sourcesContent: false,
      mainFields: ['module', 'main'],
      banner: { js: LAMBDA_BUNDLING.banner },
    });
    expect(options).not.toHaveProperty('external');
  });

  it('refuses a bundling option it cannot reproduce rather than measure another bundle', () => {
    // Prepare
    const bundling = { ...LAMBDA_BUNDLING, keepNames: true };

    // Act
    const build = () => esbuildOptionsFor(bundling, LAMBDA_RUNTIME, '/tmp/out');

    // Assess
    expect(build).toThrow(/keepNames/);
  });

  it('refuses a bundle without the AWS SDK, which cannot load outside Lambda', () => {
    // Prepare
    const bundling = { ...LAMBDA_BUNDLING, bundleAwsSDK: false };

    // Act
    const build = () => esbuildOptionsFor(bundling, LAMBDA_RUNTIME, '/tmp/out');

    // Assess
    expect(build).toThrow(/bundleAwsSDK/);
  });
});
