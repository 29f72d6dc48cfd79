/**
 * `service-webhook-receiver/core`: the signature kit. Pure functions that verify and produce
 * `Service-Signature` headers (spec sections 2.4 and 5), with no AWS, no I/O and no other
 * package in their module graph. Everything else under `lambda/` is private to the receiver.
 * @module
 */
export { WebhookReceiverError } from './errors.js';
export { BodyNotJsonError, signPayload } from './sign.js';
export {
  type ParseSignatureHeaderResult,
  parseSignatureHeader,
  type SignatureHeader,
} from './signature-header.js';
export {
  type VerifyFailureReason,
  type VerifyResult,
  type VerifySignatureInput,
  verifySignature,
} from './verify-signature.js';
