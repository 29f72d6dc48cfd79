import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CDK_JSON_CONTEXT, SKIP_BUNDLING } from '../lib/cdk-app.js';

describe('Script: bin/app.ts', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'receiver-bin-'));

  afterAll(() => {
    rmSync(outdir, { recursive: true, force: true });
  });

  it('writes the stack template when run the way the CDK CLI runs it, with no AWS credentials', () => {
    // Prepare: the CLI passes the assembly directory and the context (cdk.json plus -c) this way.
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ ...CDK_JSON_CONTEXT, ...SKIP_BUNDLING, fifo: 'true' }),
    };

    // Act
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
      cwd: new URL('../..', import.meta.url),
      env,
      encoding: 'utf8',
    });

    // Assess
    expect(run.stderr).not.toContain('AwsSolutions');
    expect(run.status).toBe(0);
    const template = JSON.parse(
      readFileSync(join(outdir, 'WebhookReceiver.template.json'), 'utf8'),
    );
    expect(Object.keys(template.Outputs).sort()).toEqual([
      'DeadLetterQueueUrl',
      'QueueArn',
      'QueueUrl',
      'SecretArn',
      'WebhookUrl',
    ]);
    expect(JSON.stringify(template.Resources)).toContain('"FifoQueue":true');
  }, 120_000);
});
