/**
 * The rules of the settings table's rows that take more than a bound: the forms of the ARNs it
 * imports and the rules of its lists. Pure: no AWS, no I/O.
 * @module
 */
import { ENDPOINT_NAME_RULE, isEndpointName } from './endpoints.js';
import { checkForwardEvents } from './forward-events.js';
import type { ListRuleResult } from './setting-kinds.js';
import { parseSourceAllowlist } from './source-allowlist.js';

/** An event type, as `forwardEvents` lists it: `FORWARD_EVENTS` is their comma-joined list. */
const EVENT_NAME = /^[A-Za-z0-9_.:-]+$/;

/**
 * A KMS key ARN. An alias, or an alias ARN, would not do: IAM evaluates a key's use on the key's
 * own ARN, so a policy naming the alias allows nothing.
 */
export const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;

/** The form of a KMS key ARN, for the rows of keys. */
export const KMS_KEY = {
  pattern: KMS_KEY_ARN,
  description: 'a KMS key ARN (arn:aws:kms:<region>:<account>:key/<key id>; not an alias)',
};

/** A complete secret ARN: a partial one (without the random suffix) would need a wildcard grant. */
export const SECRET_ARN = {
  pattern:
    /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/,
  description:
    'a complete Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>, as the console shows it)',
};

/** `forwardEvents`: event types, or `*` alone ({@link checkForwardEvents}). */
export function forwardEventsRule(entries: readonly string[]): ListRuleResult {
  const bad = entries.find((event) => event !== '*' && !EVENT_NAME.test(event));
  if (bad !== undefined) {
    return {
      ok: false,
      entry: bad,
      problem: "is not an event type: use letters, digits, '_', '.', ':' or '-', or '*' alone",
    };
  }
  const checked = checkForwardEvents(entries);
  return checked.ok ? { ok: true, entries } : { ok: false, problem: checked.problem };
}

/** `allowedSourceIps`: the receiver's own parser, its ranges normalised (`a/32` for an address). */
export function sourceAllowlistRule(entries: readonly string[]): ListRuleResult {
  const parsed = parseSourceAllowlist(entries);
  if (parsed.ok) return { ok: true, entries: parsed.allowlist.ranges };
  return entries.length === 0
    ? { ok: false, problem: parsed.problem }
    : { ok: false, entry: parsed.entry, problem: parsed.problem };
}

/** `endpoints` (context): at least one valid endpoint name. */
export function endpointNamesRule(entries: readonly string[]): ListRuleResult {
  if (entries.length === 0) {
    return {
      ok: false,
      problem:
        'must name at least one endpoint (leave it out for the single endpoint POST /webhook)',
    };
  }
  const bad = entries.find((name) => !isEndpointName(name));
  return bad === undefined
    ? { ok: true, entries }
    : { ok: false, entry: bad, problem: `is not ${ENDPOINT_NAME_RULE}` };
}
