import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS } from '@aws-lambda-powertools/idempotency';
import { App, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_RECORD_ATTRIBUTES,
  IdempotencyTable,
  type IdempotencyTableProps,
} from '../../lib/idempotency-table.js';
import { appProps } from './cdk-app.js';
import { idempotencyRecordsStatement } from './synthesize.js';

// Cloud assemblies go under the checkout's git-ignored .local/, removed after the tests.
const OUTDIR_ROOT = fileURLToPath(new URL('../../.local/idempotency-table-test/', import.meta.url));

interface Synthesized {
  readonly stack: Stack;
  readonly table: IdempotencyTable;
  readonly consumerRole: iam.Role;
  /** The stack's template; reading it synthesizes the app (without validation plugins). */
  template(): Template;
  readonly app: App;
  readonly outdir: string;
}

let synths = 0;

/** A stack holding the table and a consumer role it granted, as the receiver stack would. */
function synthesize(props?: IdempotencyTableProps, plugins = false): Synthesized {
  const outdir = join(OUTDIR_ROOT, String(synths++));
  mkdirSync(outdir, { recursive: true });
  const app = new App({ ...appProps(), outdir });
  const stack = new Stack(app, 'IdempotencyTableTest');
  const table = new IdempotencyTable(stack, 'Idempotency', props);
  const consumerRole = new iam.Role(stack, 'ConsumerRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
  });
  table.grantConsumer(consumerRole);
  if (plugins) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  }
  return { stack, table, consumerRole, template: () => Template.fromStack(stack), app, outdir };
}

describe('Class: IdempotencyTable', () => {
  afterAll(() => {
    rmSync(OUTDIR_ROOT, { recursive: true, force: true });
  });

  it('creates an on-demand table keyed on id, with TTL on the expiration attribute, PITR and the AWS managed key', () => {
    // Act
    const template = synthesize().template();

    // Assess
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      // SSEEnabled without a key id: KMS with the AWS managed key aws/dynamodb.
      SSESpecification: { SSEEnabled: true, KMSMasterKeyId: Match.absent() },
    });
    template.resourceCountIs('AWS::KMS::Key', 0);
  });

  it('puts the TTL on the attribute the Powertools utility writes the expiry to', () => {
    // Assess: a Powertools upgrade that renamed it would leave records that never expire.
    expect(IDEMPOTENCY_RECORD_ATTRIBUTES.expiry).toBe(
      PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS.expiryAttr,
    );
  });

  it('retains the table by default and takes the removal policy it is given', () => {
    // Act
    const retained = synthesize();
    const destroyed = synthesize({ removalPolicy: RemovalPolicy.DESTROY });

    // Assess
    retained.template().hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    destroyed.template().hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
    });
  });

  it('grants the consumer only item-level reads and writes on the table', () => {
    // Prepare
    const { stack, table, template } = synthesize();

    // Assess
    template().hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [idempotencyRecordsStatement(stack.resolve(table.table.tableArn))],
      },
    });
  });

  it('tells the consumer the table and a TTL of 7 days by default', () => {
    // Act
    const { stack, table } = synthesize();

    // Assess
    expect(table.idempotencyTtl.toDays()).toBe(7);
    expect(stack.resolve(table.consumerEnvironment)).toEqual({
      IDEMPOTENCY_TABLE: stack.resolve(table.table.tableName),
      IDEMPOTENCY_TTL_SECONDS: '604800',
    });
  });

  it('passes a custom idempotencyTtl to the consumer in seconds', () => {
    // Act
    const { table } = synthesize({ idempotencyTtl: Duration.days(2) });

    // Assess
    expect(table.consumerEnvironment.IDEMPOTENCY_TTL_SECONDS).toBe('172800');
  });

  it.each([
    ['less than a second', Duration.millis(500)],
    ['not whole seconds', Duration.millis(1500)],
  ])('rejects an idempotencyTtl of %s', (_, idempotencyTtl) => {
    // Act
    const create = () => synthesize({ idempotencyTtl });

    // Assess
    expect(create).toThrow(/idempotencyTtl, in seconds, must be a whole number of at least 1/);
  });

  describe('cdk-nag AwsSolutions and Serverless packs', () => {
    it('finds nothing to suppress on the table and the consumer grant', () => {
      // Prepare
      const { app, outdir } = synthesize(undefined, true);

      // Act
      const assembly = app.synth();

      // Assess: the report lists a pack only when it found something
      const report: { pluginReports: { violations: { ruleName: string }[] }[] } = JSON.parse(
        readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'),
      );
      expect(assembly.directory).toBe(outdir);
      expect(report.pluginReports.flatMap(({ violations }) => violations)).toEqual([]);
    });

    it('would report a DynamoDB table without point-in-time recovery, so the check above can fail', () => {
      // Prepare
      const { app, stack } = synthesize(undefined, true);
      new dynamodb.Table(stack, 'PlainTable', {
        partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
      });

      // Act
      const synth = () => app.synth();

      // Assess
      expect(synth).toThrow(/AwsSolutions-DDB3/);
    });
  });
});
