import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CDK_JSON_CONTEXT, SKIP_BUNDLING, testOutdir } from '../lib/cdk-app.js';
import { toolEnvironment } from '../support/tool-environment.js';

/** Runs bin/app.ts the way the CDK CLI does: assembly directory and context (cdk.json plus -c) by environment. */
function runApp(context: Record<string, unknown>, outdir: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
    cwd: new URL('../..', import.meta.url),
    env: toolEnvironment({
      HOME: process.env.HOME,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ ...CDK_JSON_CONTEXT, ...SKIP_BUNDLING, ...context }),
    }),
    encoding: 'utf8',
  });
}

describe('Script: bin/app.ts', () => {
  it('writes the stack template when run the way the CDK CLI runs it, with no AWS credentials', () => {
    // Prepare
    const outdir = testOutdir();

    // Act
    const run = runApp({ fifo: 'true', ingress: 'function-url' }, outdir);

    // Assess
    expect(run.stderr).not.toContain('AwsSolutions');
    expect(run.status).toBe(0);
    const template = JSON.parse(
      readFileSync(join(outdir, 'WebhookReceiver.template.json'), 'utf8'),
    );
    expect(Object.keys(template.Outputs).sort()).toEqual([
      'ArchiveBucketName',
      'ConsumerLogGroupName',
      'DeadLetterQueueUrl',
      'IdempotencyTableName',
      'QueueArn',
      'QueueUrl',
      'SecretArn',
      'WebhookUrl',
    ]);
    expect(template.Outputs.WebhookUrl.Value['Fn::Join'][1][0]['Fn::GetAtt'][1]).toBe(
      'FunctionUrl',
    );
    expect(JSON.stringify(template.Resources)).toContain('"FifoQueue":true');
  }, 120_000);

  it('prints one line naming the key, with no stack trace, on a bad context value', () => {
    // Act
    const run = runApp({ ingress: 'alb' }, testOutdir());

    // Assess
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'Invalid CDK context: context ingress must be one of http-api, rest-api, function-url, got "alb"\n',
    );
  }, 120_000);

  it('refuses -c allowedSourceIps= (an empty allowlist) in one line naming the key, writing no template', () => {
    // Act
    const outdir = testOutdir();
    const run = runApp({ allowedSourceIps: '' }, outdir);

    // Assess
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'Invalid CDK context: context allowedSourceIps (ALLOWED_SOURCE_IPS) names no range: leave the setting out to let every source in\n',
    );
    expect(existsSync(join(outdir, 'WebhookReceiver.template.json'))).toBe(false);
  }, 120_000);
});
