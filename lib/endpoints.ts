import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';

/**
 * One named endpoint of a receiver serving several (`POST /webhook/<name>`), with its own signing
 * key: the booking service issues one key per endpoint, and a key verifies calls to its own
 * endpoint only.
 */
export interface WebhookEndpoint {
  /**
   * The endpoint's name: the last segment of its path, the `endpoint` attribute of its messages
   * and, in PascalCase without hyphens, the suffix of its stack outputs (`eu-west` ->
   * `WebhookUrlEuWest`). 1 to 32 characters of lowercase letters, digits and `-`, unique.
   */
  readonly name: string;

  /**
   * Secret whose `SecretString` is this endpoint's signing key; import it with
   * `Secret.fromSecretCompleteArn` so the receiver's role names that exact ARN (with
   * `fromSecretAttributes({ secretCompleteArn, encryptionKey })` when a customer managed KMS key
   * encrypts it, so the role may decrypt it through Secrets Manager).
   * @default - a new secret of its own holding a random 64-character placeholder
   */
  readonly secret?: secretsmanager.ISecret;

  /**
   * The field holding the key when this endpoint's `SecretString` is a JSON object with several
   * fields (the receiver's `ENDPOINT_SECRET_JSON_FIELDS` entry for this endpoint).
   * @default - the receiver's `secretJsonField`, if any
   */
  readonly secretJsonField?: string;
}

/** A named endpoint as the receiver serves it. */
export interface ServedWebhookEndpoint {
  /** The endpoint's name. */
  readonly name: string;
  /** The full URL to register with the booking service for this endpoint. */
  readonly url: string;
  /** The secret holding this endpoint's signing key. */
  readonly secret: secretsmanager.ISecret;
  /** The field of a JSON secret holding the key, when the endpoint names one. */
  readonly secretJsonField: string | undefined;
}
