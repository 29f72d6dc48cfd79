/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The page's list of deliveries: rows built from the server's summaries, kept in its order and
 * its cap, changed in place by live events gathered and applied once per frame (only the rows
 * that changed are built), shown or hidden by the filters.
 * @module
 */
import type { DeliverySummary } from '../delivery.js';
import { MAX_KEPT_DELIVERIES } from '../limits.js';
import { byId, cell, element, getJson, size, statusBadge, time } from './dom.js';

/** A listed delivery and its row, in the server's order: oldest first, as Map keeps insertion. */
interface Listed {
  summary: DeliverySummary;
  row: HTMLTableRowElement;
}
export const listed = new Map<string, Listed>();
/** Rows new or changed since the last frame, in arrival order, and deliveries the server dropped. */
const pending = new Map<string, DeliverySummary>();
const dropped = new Set<string>();
let frameRequested = false;
/** Set while the list is being (re)loaded: live changes wait for it. */
let loading: Promise<void> | undefined;
/** Whether a first list has arrived: until then the page says it is loading, not that it is empty. */
let loaded = false;

/**
 * The delivery whose detail is open, and the source: `npm start`'s own deliveries (live), or the
 * console's archive, with the query of its window and filters (`from=…&to=…`) and its queue.
 */
export const state: {
  selected: string | undefined;
  mode: 'local' | 'archive';
  query: string;
  queue: string;
} = { selected: undefined, mode: 'local', query: '', queue: '' };

/** What the detail view is told: the open delivery changed, a delivery left the list. */
const hooks = {
  selectedChanged: (): void => {},
  removed: (_id: string): void => {},
};

/** Registers the detail view's hooks. */
export function onListEvents(handlers: Partial<typeof hooks>): void {
  Object.assign(hooks, handlers);
}

const rows = byId<HTMLTableSectionElement>('rows');
const statusFilter = byId<HTMLSelectElement>('status-filter');
const bookingSearch = byId<HTMLInputElement>('booking-search');

function visible(summary: DeliverySummary): boolean {
  const statusClass = statusFilter.value;
  const booking = bookingSearch.value.trim();
  if (statusClass !== '' && !String(summary.status).startsWith(statusClass)) return false;
  return booking === '' || (summary.bookingId ?? '').includes(booking);
}

function buildRow(summary: DeliverySummary): HTMLTableRowElement {
  const link = element('a', { href: `#${summary.id}`, textContent: time(summary.receivedAt) });
  link.setAttribute(
    'aria-label',
    `${summary.status} ${summary.reason} at ${time(summary.receivedAt)}`,
  );
  const row = element(
    'tr',
    {},
    cell('c-time', '', link),
    cell('c-endpoint', '', summary.endpoint),
    cell('c-method', '', summary.method),
    cell('c-status', '', statusBadge(summary.status)),
    cell('c-reason', '', summary.consumed ? `${summary.reason}, consumed` : summary.reason),
    cell('c-event', 'event', summary.eventType ?? '–'),
    cell('c-booking', 'booking', summary.bookingId ?? '–'),
    cell(
      'c-skew num',
      'skew s',
      summary.skewSeconds === undefined ? '–' : String(summary.skewSeconds),
    ),
    cell('c-size num', 'body', size(summary.bodyBytes)),
  );
  row.dataset.id = summary.id;
  row.dataset.status = String(summary.status);
  row.hidden = !visible(summary);
  if (summary.replayOf !== undefined) row.classList.add('replay');
  if (summary.id === state.selected) row.classList.add('selected');
  return row;
}

/** The count line, and the loading or empty-list hint. */
export function renderCount(): void {
  let shown = 0;
  for (const { row } of listed.values()) if (!row.hidden) shown += 1;
  const all = listed.size;
  byId('loading').hidden = loaded;
  byId('empty').hidden = !loaded || all > 0;
  const noun = all === 1 ? 'delivery' : 'deliveries';
  byId('count').textContent = shown === all ? `${all} ${noun}` : `${shown} of ${all} shown`;
}

/** Shows or hides every row by the filters (the filters changed). */
function applyFilters(): void {
  for (const { summary, row } of listed.values()) row.hidden = !visible(summary);
  renderCount();
}

export function remove(id: string): void {
  listed.get(id)?.row.remove();
  listed.delete(id);
  hooks.removed(id);
}

/** Applies the changes gathered since the last frame: only those rows are built or removed. */
function flush(): void {
  frameRequested = false;
  if (loading !== undefined) return;
  for (const id of dropped) remove(id);
  dropped.clear();
  const added: HTMLTableRowElement[] = [];
  let selectedChanged = false;
  for (const summary of pending.values()) {
    const row = buildRow(summary);
    const current = listed.get(summary.id);
    if (current === undefined) added.push(row);
    else current.row.replaceWith(row);
    listed.set(summary.id, { summary, row });
    if (summary.id === state.selected) selectedChanged = true;
  }
  pending.clear();
  // Newest first: the last to arrive goes on top.
  rows.prepend(...added.reverse());
  // The server keeps the same number: a row beyond it could not be opened any more.
  for (const id of listed.keys()) {
    if (listed.size <= MAX_KEPT_DELIVERIES) break;
    remove(id);
  }
  renderCount();
  if (selectedChanged) hooks.selectedChanged();
}

function scheduleFlush(): void {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(flush);
}

/** A row new or changed, shown at the next frame. */
export function upsert(summary: DeliverySummary): void {
  // A row changed twice before a frame keeps the place of its first arrival.
  pending.set(summary.id, summary);
  // A hidden tab gets no frames: keep no more waiting than the list can show.
  for (const id of pending.keys()) {
    if (pending.size <= MAX_KEPT_DELIVERIES) break;
    pending.delete(id);
  }
  scheduleFlush();
}

export function drop(id: string): void {
  pending.delete(id);
  dropped.add(id);
  scheduleFlush();
}

/**
 * Replaces the list with the server's (at start, after the live stream reconnects, and when the
 * console's window or filters change); resolves with the whole answer. Until the first answer the
 * page says it is loading; a failed load says why there.
 *
 * @param path - the list's path under the API, with its query
 */
export async function loadList<T extends { deliveries: DeliverySummary[] }>(
  path = '/deliveries',
): Promise<T | undefined> {
  let answer: T | undefined;
  const load = getJson<T>(path).then((body) => {
    answer = body;
    for (const { row } of listed.values()) row.remove();
    listed.clear();
    dropped.clear();
    const built = body.deliveries.map((summary) => [summary, buildRow(summary)] as const);
    // The server lists newest first; the map keeps oldest first.
    for (const [summary, row] of [...built].reverse()) listed.set(summary.id, { summary, row });
    rows.replaceChildren(...built.map(([, row]) => row));
    loaded = true;
  });
  loading = load;
  try {
    await load;
  } catch (error) {
    byId('loading').textContent = `Could not load the deliveries: ${(error as Error).message}`;
  } finally {
    loading = undefined;
    // Live changes that arrived meanwhile: newer than the list, or already in it (updated in place).
    flush();
  }
  return answer;
}

export function markSelected(previous: string | undefined): void {
  if (previous !== undefined) listed.get(previous)?.row.classList.remove('selected');
  if (state.selected !== undefined) listed.get(state.selected)?.row.classList.add('selected');
}

statusFilter.addEventListener('change', applyFilters);
bookingSearch.addEventListener('input', applyFilters);
