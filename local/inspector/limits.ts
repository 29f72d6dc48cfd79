/**
 * The inspector's bounds, in one place: the server keeps them and the page (bundled for the
 * browser, so this module imports nothing) keeps the same.
 * @module
 */

/** How many deliveries the inspector keeps, on the server and on the page (the oldest go first). */
export const MAX_KEPT_DELIVERIES = 500;

/** Bodies above this size are kept truncated (with their full size and SHA-256). */
export const MAX_KEPT_BODY_BYTES = 64 * 1024;

/**
 * Most bytes of whole bodies above {@link MAX_KEPT_BODY_BYTES} held for 401s not yet opened,
 * whose diagnosis needs the exact bytes; beyond it the oldest are let go (and say so when opened).
 */
export const MAX_HELD_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Most bytes a live stream may have waiting to be read: a page that stops reading (a frozen or
 * suspended tab) is disconnected past it, and reloads the list when it reconnects.
 */
export const MAX_STREAM_BACKLOG_BYTES = 1024 * 1024;

/**
 * Deepest nesting the page indents: each level indents every line inside it, so the indented text
 * grows with depth times lines (a 6 KB body of nested arrays would indent to 18 MB). At this depth
 * a kept body indents to at most about 2 MB; a deeper one is shown as its exact bytes.
 */
export const MAX_PRETTY_DEPTH = 32;
