import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { InvalidContextError, readReceiverContext } from '../../lib/context.js';
import { testOutdir } from './cdk-app.js';

const WEB_ACL_ARN =
  'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/hooks/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';
const SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:booking-webhook-key-AbC123';
const KMS_KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const CERTIFICATE_ARN =
  'arn:aws:acm:eu-west-1:123456789012:certificate/1f2e3d4c-5b6a-4789-90ab-cdef01234567';

/**
 * Reads the context as the app would see it after `cdk synth -c ...` or cdk.json. The outdir keeps
 * the app from making a cloud assembly folder in the system temp folder.
 */
function read(context: Record<string, unknown>) {
  return readReceiverContext(new App({ context, outdir: testOutdir() }).node);
}

describe('Function: readReceiverContext', () => {
  it('refuses an empty allowedSourceIps (-c allowedSourceIps=), naming it, but reads other empty keys as unset', () => {
    // Act
    const act = () => read({ allowedSourceIps: '' });
    const others = read({ forwardEvents: '', secretJsonField: '', endpoints: '' });

    // Assess
    expect(act).toThrow(InvalidContextError);
    expect(act).toThrow(
      'context allowedSourceIps (ALLOWED_SOURCE_IPS) names no range: leave the setting out to let every source in',
    );
    expect(others.props).toEqual({});
  });

  it('uses the default stack name and leaves every option to the stack when no key is set', () => {
    // Act
    const result = read({});

    // Assess
    expect(result).toEqual({ stackName: 'WebhookReceiver', props: {} });
  });

  it('reads the texts that -c key=value passes', () => {
    // Act
    const result = read({
      stackName: 'BookingHooks',
      ingress: 'rest-api',
      webAclArn: WEB_ACL_ARN,
      reservedConcurrency: '50',
      secretArn: SECRET_ARN,
      secretJsonField: 'webhook_secret',
      tracing: 'true',
      fifo: 'true',
      signatureToleranceSeconds: '120',
      previousKeyGraceSeconds: '0',
      forwardEvents: 'event_booked, event_cancelled',
      throttleRateLimit: '12.5',
      throttleBurstLimit: '25',
      alarmEmail: 'ops@example.com',
      silenceAlarmMinutes: '0',
      dashboard: 'false',
      apiGatewayCloudWatchRole: 'false',
      consumer: 'false',
      idempotency: 'false',
      domainName: 'hooks.example.com',
      certificateArn: CERTIFICATE_ARN,
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      hostedZoneName: 'example.com',
      disableDefaultEndpoint: 'false',
      allowedSourceIps: '203.0.113.0/24, 2001:db8::/32',
      receiverMemorySize: '256',
      systemLogLevel: 'INFO',
    });

    // Assess
    expect(result).toEqual({
      stackName: 'BookingHooks',
      props: {
        ingress: 'rest-api',
        webAclArn: WEB_ACL_ARN,
        reservedConcurrency: 50,
        secretArn: SECRET_ARN,
        secretJsonField: 'webhook_secret',
        tracing: true,
        fifo: true,
        signatureToleranceSeconds: 120,
        previousKeyGraceSeconds: 0,
        forwardEvents: ['event_booked', 'event_cancelled'],
        throttleRateLimit: 12.5,
        throttleBurstLimit: 25,
        alarmEmail: 'ops@example.com',
        silenceAlarmMinutes: 0,
        dashboard: false,
        apiGatewayCloudWatchRole: false,
        consumer: false,
        idempotency: false,
        domainName: 'hooks.example.com',
        certificateArn: CERTIFICATE_ARN,
        hostedZoneId: 'Z0123456789ABCDEFGHIJ',
        hostedZoneName: 'example.com',
        disableDefaultEndpoint: false,
        allowedSourceIps: ['203.0.113.0/24', '2001:db8::/32'],
        receiverMemorySize: 256,
        systemLogLevel: 'INFO',
      },
    });
  });

  it('reads the JSON values cdk.json holds', () => {
    // Act
    const result = read({
      fifo: false,
      signatureToleranceSeconds: 60,
      forwardEvents: ['*'],
      consumer: true,
      idempotency: true,
      disableDefaultEndpoint: true,
      allowedSourceIps: ['203.0.113.0/24', '2001:db8::/32'],
    });

    // Assess
    expect(result.props).toEqual({
      fifo: false,
      signatureToleranceSeconds: 60,
      forwardEvents: ['*'],
      consumer: true,
      idempotency: true,
      disableDefaultEndpoint: true,
      allowedSourceIps: ['203.0.113.0/24', '2001:db8::/32'],
    });
  });

  it('reads endpoints and the secretArn.<name> of each', () => {
    // Act
    const result = read({
      endpoints: 'eu, us-west',
      'secretArn.eu': SECRET_ARN,
      'secretArn.us-west': '',
    });

    // Assess
    expect(result.props.endpoints).toEqual([
      { name: 'eu', secretArn: SECRET_ARN },
      { name: 'us-west' },
    ]);
  });

  it('reads secretKmsKeyArn, and secretKmsKeyArn.<name> beside secretArn.<name>', () => {
    // Act
    const single = read({ secretArn: SECRET_ARN, secretKmsKeyArn: KMS_KEY_ARN });
    const named = read({
      endpoints: 'eu,us',
      'secretArn.eu': SECRET_ARN,
      'secretKmsKeyArn.eu': KMS_KEY_ARN,
    });

    // Assess
    expect(single.props).toEqual({ secretArn: SECRET_ARN, secretKmsKeyArn: KMS_KEY_ARN });
    expect(named.props.endpoints).toEqual([
      { name: 'eu', secretArn: SECRET_ARN, secretKmsKeyArn: KMS_KEY_ARN },
      { name: 'us' },
    ]);
  });

  it('reads endpoints as the JSON array cdk.json holds', () => {
    expect(read({ endpoints: ['eu', 'us'] }).props.endpoints).toEqual([
      { name: 'eu' },
      { name: 'us' },
    ]);
  });

  it.each([
    [
      { 'secretArn.eu': SECRET_ARN },
      /context secretArn\.eu names no endpoint of context endpoints \(not set\)/,
    ],
    [
      { endpoints: 'eu,us', 'secretArn.uk': SECRET_ARN },
      /context secretArn\.uk names no endpoint of context endpoints \(eu,us\)/,
    ],
    [
      { endpoints: 'eu', 'secretArn.eu': 42 },
      /context secretArn\.eu must be non-empty text, got 42/,
    ],
    [
      { endpoints: 'eu', 'secretKmsKeyArn.us': KMS_KEY_ARN },
      /context secretKmsKeyArn\.us names no endpoint of context endpoints \(eu\)/,
    ],
    [{ endpoints: { eu: SECRET_ARN } }, /context endpoints must be a comma-separated list/],
  ])('rejects endpoint keys %j, naming the key', (context, message) => {
    // Act
    const act = () => read(context);

    // Assess
    expect(act).toThrow(InvalidContextError);
    expect(act).toThrow(message);
  });

  it('treats an empty text as not set, so cdk.json can list a key without a value', () => {
    // Act
    const result = read({ secretArn: '', alarmEmail: '', stackName: '' });

    // Assess
    expect(result).toEqual({ stackName: 'WebhookReceiver', props: {} });
  });

  it.each([
    [
      'ingress',
      'alb',
      /context ingress must be one of http-api, rest-api, function-url, got "alb"/,
    ],
    ['ingress', 3, /context ingress must be one of http-api, rest-api, function-url, got 3/],
    ['tracing', 'on', /context tracing must be true or false/],
    [
      'reservedConcurrency',
      'many',
      /context reservedConcurrency must be a whole number of at least 1, got many/,
    ],
    [
      'secretJsonField',
      ['a'],
      /context secretJsonField \(SECRET_JSON_FIELD\) must be non-empty text, got \["a"\]/,
    ],
    ['fifo', 'yes', /context fifo must be true or false, got "yes"/],
    ['consumer', 1, /context consumer must be true or false/],
    ['idempotency', 'on', /context idempotency must be true or false, got "on"/],
    [
      'signatureToleranceSeconds',
      '5m',
      'context signatureToleranceSeconds (SIGNATURE_TOLERANCE_SECONDS) must be a whole number from 1 to 3600, got 5m',
    ],
    ['throttleRateLimit', true, /context throttleRateLimit must be a number above 0, got true/],
    [
      'forwardEvents',
      [1, 2],
      /context forwardEvents \(FORWARD_EVENTS\) must be a comma-separated list/,
    ],
    ['alarmEmail', 42, /context alarmEmail must be non-empty text, got 42/],
    [
      'silenceAlarmMinutes',
      'hourly',
      /context silenceAlarmMinutes must be a whole number from 0 to 1440, got hourly/,
    ],
    ['dashboard', 'yes', /context dashboard must be true or false/],
    ['domainName', ['hooks.example.com'], /context domainName must be non-empty text/],
    ['disableDefaultEndpoint', 'yes', /context disableDefaultEndpoint must be true or false/],
    [
      'allowedSourceIps',
      { cidr: '203.0.113.0/24' },
      /context allowedSourceIps \(ALLOWED_SOURCE_IPS\) must be a comma-separated list/,
    ],
    [
      'receiverMemorySize',
      '1GB',
      /context receiverMemorySize must be a whole number from 128 to 10240, got 1GB/,
    ],
    [
      'systemLogLevel',
      'ERROR',
      /context systemLogLevel must be one of INFO, DEBUG, WARN, got "ERROR"/,
    ],
    ['stackName', 'my_stack', /context stackName "my_stack" is not a CloudFormation stack name/],
    ['stackName', '1stack', /not a CloudFormation stack name/],
  ])('rejects %s = %j, naming the key', (key, value, message) => {
    // Act
    const act = () => read({ [key]: value });

    // Assess
    expect(act).toThrow(InvalidContextError);
    expect(act).toThrow(message);
  });
});
