import { randomBytes } from 'node:crypto';
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { checkSetting } from '../../lambda/contract/setting-kinds.js';
import { RECEIVER_FUNCTION_SETTINGS, SETTINGS } from '../../lambda/contract/settings.js';
import { loadConfig } from '../../lambda/receiver/config.js';
import { readReceiverContext } from '../../lib/context.js';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import { appProps, templateTestApp, testOutdir } from '../lib/cdk-app.js';
import { scratchDir } from '../support/scratch-dir.js';
import { killStartedProcessesAfterEach, startProcess } from '../support/start-process.js';

const dir = scratchDir('settings-agreement');
killStartedProcessesAfterEach();

/** Each whole-number setting of the receiver function with a value just past its range. */
const OUT_OF_RANGE = RECEIVER_FUNCTION_SETTINGS.map((prop) => SETTINGS[prop]).flatMap((setting) =>
  setting.kind === 'whole-number'
    ? [{ setting, value: 'maximum' in setting ? setting.maximum + 1 : -1 }]
    : [],
);

/** What the construct says when given `value` as the setting's prop. */
function constructRefusal(prop: string, value: number): string {
  const stack = new Stack(templateTestApp(), 'Refused');
  try {
    new WebhookReceiver(stack, 'Receiver', { [prop]: value });
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
}

/** What the Lambda's cold start says when its variable holds `value`. */
function coldStartRefusal(variable: string, value: number): string {
  try {
    loadConfig({
      SECRET_ID: 'signing-key',
      QUEUE_URL: 'https://sqs.example/q',
      [variable]: `${value}`,
    });
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
}

/** What `cdk synth -c <prop>=<value>` says. */
function contextRefusal(prop: string, value: number): string {
  try {
    readReceiverContext(
      new App({ ...appProps(), context: { [prop]: `${value}` }, outdir: testOutdir() }).node,
    );
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
}

describe('A receiver setting out of its range', () => {
  it.each(OUT_OF_RANGE)(
    'is refused with one message by the construct, the context, the cold start and npm start: $setting.prop = $value',
    async ({ setting, value }) => {
      // Prepare
      const checked = checkSetting(setting, `${value}`);
      expect(checked.ok).toBe(false);
      const message = checked.ok ? '' : checked.message;

      // Act
      const started = startProcess(dir(), {
        WEBHOOK_SECRET: randomBytes(32).toString('hex'),
        LOCAL_STATE_DIR: `${dir()}/${setting.prop}`,
        [setting.variable]: `${value}`,
      });
      const exitCode = await started.exit;

      // Assess
      expect(message).toContain(`${setting.prop} (${setting.variable})`);
      expect(constructRefusal(setting.prop, value)).toBe(message);
      expect(contextRefusal(setting.prop, value)).toBe(`context ${message}`);
      expect(coldStartRefusal(setting.variable, value)).toBe(message);
      expect(exitCode).not.toBe(0);
      expect(started.stderr()).toContain(message);
    },
  );

  it('names the tolerance range 1 to 3600 for 3601', () => {
    // Act
    const refusal = coldStartRefusal('SIGNATURE_TOLERANCE_SECONDS', 3601);

    // Assess
    expect(refusal).toBe(
      'signatureToleranceSeconds (SIGNATURE_TOLERANCE_SECONDS) must be a whole number from 1 to 3600, got 3601',
    );
  });
});
