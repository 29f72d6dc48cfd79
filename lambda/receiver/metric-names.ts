/**
 * CloudWatch metric names (EMF) of the receiver. The CDK alarms watch these, so they live in this
 * dependency-free module, which the CDK app imports without pulling in Powertools: renaming a
 * metric renames what its alarm watches. Keep the values exact, they are a documented interface.
 */
export const METRIC_NAMES = {
  received: 'WebhookReceived',
  forwarded: 'WebhookForwarded',
  ignored: 'WebhookIgnored',
  rejected: 'WebhookRejected',
  signatureRejected: 'SignatureRejected',
  /** Calls refused for a source address outside `ALLOWED_SOURCE_IPS` (never in SignatureRejected). */
  sourceNotAllowed: 'SourceNotAllowed',
  keyLoadFailure: 'KeyLoadFailure',
  queueSendFailure: 'QueueSendFailure',
  /** Archive records not taken within the write bound (the answer was sent all the same). */
  archiveWriteFailure: 'ArchiveWriteFailure',
} as const;
