/**
 * The line `npm run consume` prints for one message: readable, or one JSON object with
 * `--json`.
 * @module
 */
import type { Message } from '@aws-sdk/client-sqs';
import { terminalSafe } from '../../devkit/terminal-text.js';
import { parseBookingEvent } from '../../lambda/consumer/booking-event.js';

/**
 * One line per message: the endpoint it was sent to (when the receiver serves several), booking
 * id, event, user, session, cost, from the consumer's typed parser; anything else shows why it
 * is not a booking and the start of its body. Every field is the sender's text (a signed booking
 * can hold any user name), so the line is {@link terminalSafe}.
 */
export function formatPretty(message: Message): string {
  const body = message.Body ?? '';
  const endpoint = endpointAttribute(message);
  const prefix = endpoint === undefined ? '' : `endpoint ${endpoint} | `;
  const parsed = parseBookingEvent(body);
  if (parsed.ok) {
    const { event, data } = parsed.event;
    return terminalSafe(
      prefix +
        [
          `booking ${data.id}`,
          event,
          `"${data.event_name}"`,
          `user ${data.user.id} ${data.user.name} <${data.user.email}>`,
          `session ${data.session_start} - ${data.session_end}`,
          `cost ${data.cost}`,
        ].join(' | '),
    );
  }
  const event = message.MessageAttributes?.event?.StringValue ?? 'unknown event';
  const excerpt = body.length > 200 ? `${body.slice(0, 200)}...` : body;
  return terminalSafe(
    `${prefix}message ${message.MessageId} | ${event} | not an event_booked payload (${parsed.issues.join('; ')}) | ${excerpt}`,
  );
}

/**
 * The message as one JSON line: id, the endpoint it was sent to (when the receiver serves several),
 * attributes as plain strings, and the body text exactly as queued. JSON escapes the C0 controls
 * but not the C1 controls or bidi overrides an attribute or body may hold: {@link terminalSafe}
 * escapes those too, as JSON escapes, so the line parses to the same value.
 */
export function formatJson(message: Message): string {
  const endpoint = endpointAttribute(message);
  const attributes = Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      value.StringValue ?? value.BinaryValue,
    ]),
  );
  return terminalSafe(
    JSON.stringify({
      messageId: message.MessageId,
      receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 1),
      ...(endpoint === undefined ? {} : { endpoint }),
      attributes,
      body: message.Body,
    }),
  );
}

/** The `endpoint` attribute a receiver serving several endpoints sets; `undefined` otherwise. */
function endpointAttribute(message: Message): string | undefined {
  return message.MessageAttributes?.endpoint?.StringValue;
}
