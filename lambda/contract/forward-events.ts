/**
 * The rule for the list of events to forward, shared by `FORWARD_EVENTS` and the construct's
 * `forwardEvents` prop, so a stack cannot deploy a list its receiver refuses at every cold start.
 * @module
 */

/** Which verified events are forwarded: `*` for all, or a set of `event` values. */
export type ForwardEvents = '*' | ReadonlySet<string>;

/** Result of {@link checkForwardEvents}: the events to forward, or what is wrong with the list. */
export type ForwardEventsCheck =
  | { readonly ok: true; readonly forwardEvents: ForwardEvents }
  | { readonly ok: false; readonly problem: string };

/**
 * The rule for the list of events to forward: `*` alone, or at least one event name. Shared by
 * `FORWARD_EVENTS` and the CDK construct's `forwardEvents` prop, so a stack cannot deploy a list
 * that its receiver refuses at every cold start.
 *
 * @param names - the event names, trimmed, none empty
 * @returns the events to forward, or a `problem` to put after the setting's name
 */
export function checkForwardEvents(names: readonly string[]): ForwardEventsCheck {
  if (names.includes('*')) {
    return names.length === 1
      ? { ok: true, forwardEvents: '*' }
      : { ok: false, problem: "must be '*' alone or a list of event names" };
  }
  if (names.length === 0) {
    return { ok: false, problem: "must name at least one event (or '*')" };
  }
  if (names.includes('')) {
    return { ok: false, problem: 'must not have an empty entry' };
  }
  return { ok: true, forwardEvents: new Set(names) };
}

/**
 * The events to forward, from a list {@link checkForwardEvents} accepted.
 *
 * @param names - the checked list
 */
export function forwardEventsOf(names: readonly string[]): ForwardEvents {
  return names.includes('*') ? '*' : new Set(names);
}
