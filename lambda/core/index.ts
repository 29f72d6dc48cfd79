/**
 * The signature core: pure functions that verify and produce `Service-Signature` headers
 * (spec sections 2.4 and 5). No AWS, no I/O.
 * @module
 */
export {
  escapeSlashes,
  type SquashResult,
  squashJson,
  unescapeSlashes,
} from './canonical-json.js';
export {
  describeSecretKeyFailure,
  keyFromSecretValue,
  replaceKeyInSecretValue,
  type SecretKeyFailure,
  type SecretKeyResult,
} from './secret-value.js';
export { BodyNotJsonError, signPayload } from './sign.js';
export {
  MAX_SIGNATURE_HEADER_LENGTH,
  type ParseSignatureHeaderResult,
  parseSignatureHeader,
  type SignatureHeader,
  type SignatureHeaderFailureReason,
  splitSignatureGroups,
} from './signature-header.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type SignedForm,
  type VerifyFailureReason,
  type VerifyResult,
  type VerifySignatureInput,
  verifySignature,
} from './verify-signature.js';
