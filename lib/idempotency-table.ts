import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { VARIABLES } from '../lambda/contract/environment.js';
import { SETTINGS } from '../lambda/contract/settings.js';
import { InvalidConfigurationError } from './configuration-error.js';
import { checkedValue } from './setting-checks.js';

/**
 * The item-level actions the Powertools Idempotency utility's DynamoDB persistence layer sends:
 * PutItem (record in progress, conditional), UpdateItem (completed), DeleteItem (processing
 * failed, so the retry runs again) and GetItem (the stored record, when a conditional PutItem
 * fails without returning it).
 */
const CONSUMER_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
] as const;

/** Properties of {@link IdempotencyTable}. */
/**
 * The attributes the Powertools Idempotency utility's DynamoDB layer uses by default (its key
 * `id`, and the expiry from its `PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS`), written out here so the
 * construct does not pull the runtime utility into a CDK app; tests pin both to the utility.
 */
export const IDEMPOTENCY_RECORD_ATTRIBUTES = { key: 'id', expiry: 'expiration' } as const;

export interface IdempotencyTableProps {
  /**
   * How long a processed booking's record suppresses its copies. The spec does not say how long
   * the service retries a delivery; a week outlasts any retry schedule we expect, and a record
   * costs only its storage until DynamoDB's TTL removes it, so a generous window is cheap. A copy
   * arriving later is processed again.
   *
   * @default Duration.days(7)
   */
  readonly idempotencyTtl?: Duration;
  /**
   * What happens to the table (and the records in it) when it leaves the stack. Pass the queue's,
   * so the records live as long as the messages they describe.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The DynamoDB table where the example consumer records each booking it processed (Powertools
 * Idempotency, DynamoDB persistence layer): on-demand billing, partition key `id` as the utility
 * writes it, TTL on the utility's expiry attribute, point-in-time recovery and encryption with
 * the AWS managed key. {@link IdempotencyTable.grantConsumer} and
 * {@link IdempotencyTable.consumerEnvironment} connect a consumer function.
 */
export class IdempotencyTable extends Construct {
  /** The table. */
  public readonly table: dynamodb.Table;
  /** How long a record suppresses copies of its booking. */
  public readonly idempotencyTtl: Duration;
  /**
   * The environment a consumer function needs: `IDEMPOTENCY_TABLE` (the table name) and
   * `IDEMPOTENCY_TTL_SECONDS` (the TTL the consumer writes into each record).
   */
  public readonly consumerEnvironment: Readonly<Record<string, string>>;

  /**
   * @param scope - the parent construct
   * @param id - the construct id
   * @param props - TTL and removal policy
   * @throws {InvalidConfigurationError} when `idempotencyTtl` is shorter than one second or not whole seconds
   */
  constructor(scope: Construct, id: string, props: IdempotencyTableProps = {}) {
    super(scope, id);
    this.idempotencyTtl = props.idempotencyTtl ?? Duration.seconds(SETTINGS.idempotencyTtl.default);
    const ttlSeconds = ttlSecondsOf(this.idempotencyTtl);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: {
        name: IDEMPOTENCY_RECORD_ATTRIBUTES.key,
        type: dynamodb.AttributeType.STRING,
      },
      // Traffic follows bookings: rare and bursty, so pay per request, nothing while idle.
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      // The utility writes the record's expiry (epoch seconds) here; DynamoDB deletes it for free
      // some time after. The utility itself treats an expired record as absent until then.
      timeToLiveAttribute: IDEMPOTENCY_RECORD_ATTRIBUTES.expiry,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.consumerEnvironment = {
      [VARIABLES.idempotencyTable]: this.table.tableName,
      [SETTINGS.idempotencyTtl.variable]: ttlSeconds,
    };
  }

  /**
   * Lets a consumer read, write and delete idempotency records, item by item: no scans, queries
   * or table management.
   *
   * @param grantee - the consumer function (or its role)
   */
  public grantConsumer(grantee: iam.IGrantable): iam.Grant {
    return this.table.grant(grantee, ...CONSUMER_ACTIONS);
  }
}

/** The TTL as the consumer's variable holds it, checked with the settings table's row. */
function ttlSecondsOf(ttl: Duration): string {
  if (ttl.isUnresolved()) return ttl.toSeconds().toString();
  const row = SETTINGS.idempotencyTtl;
  const seconds = ttl.toSeconds({ integral: false });
  return String(checkedValue(row, seconds, InvalidConfigurationError, row.prop));
}
