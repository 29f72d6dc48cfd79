/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The inspector page: the list (live through server-sent events), filters, the detail of one
 * delivery and the replay buttons. Plain DOM; every value is set as text, never as HTML.
 *
 * The list stays responsive under bursts: changes are gathered and applied once per frame, and
 * only the rows that changed are built; it keeps the server's order and its cap.
 * @module
 */

import { nestedDeeperThan } from '../../../devkit/json-depth.js';
import type { DeliveryDetail, DeliverySummary } from '../delivery.js';
import { MAX_KEPT_BODY_BYTES, MAX_KEPT_DELIVERIES, MAX_PRETTY_DEPTH } from '../limits.js';

const API = '/_inspector/api';

/** A listed delivery and its row, in the server's order: oldest first, as Map keeps insertion. */
interface Listed {
  summary: DeliverySummary;
  row: HTMLTableRowElement;
}
const listed = new Map<string, Listed>();
/** Rows new or changed since the last frame, in arrival order, and deliveries the server dropped. */
const pending = new Map<string, DeliverySummary>();
const dropped = new Set<string>();
let frameRequested = false;
/** Set while the list is being (re)loaded: live changes wait for it. */
let loading: Promise<void> | undefined;
let selected: string | undefined;

const byId = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const rows = byId<HTMLTableSectionElement>('rows');
const statusFilter = byId<HTMLSelectElement>('status-filter');
const bookingSearch = byId<HTMLInputElement>('booking-search');
const detail = byId<HTMLElement>('detail');

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<'className' | 'textContent' | 'href' | 'title', string>> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function statusBadge(status: number): HTMLElement {
  return element('span', {
    className: `status s${String(status)[0]}`,
    textContent: String(status),
  });
}

function time(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour12: false });
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function cell(className: string, label: string, ...content: Array<Node | string>): HTMLElement {
  const td = element('td', { className }, ...content);
  if (label !== '') td.dataset.label = label;
  return td;
}

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
  if (summary.id === selected) row.classList.add('selected');
  return row;
}

/** The count line and the empty-list hint. */
function renderCount(): void {
  let shown = 0;
  for (const { row } of listed.values()) if (!row.hidden) shown += 1;
  const all = listed.size;
  byId('empty').hidden = all > 0;
  const noun = all === 1 ? 'delivery' : 'deliveries';
  byId('count').textContent = shown === all ? `${all} ${noun}` : `${shown} of ${all} shown`;
}

/** Shows or hides every row by the filters (the filters changed). */
function applyFilters(): void {
  for (const { summary, row } of listed.values()) row.hidden = !visible(summary);
  renderCount();
}

function remove(id: string): void {
  listed.get(id)?.row.remove();
  listed.delete(id);
  replayResults.delete(id);
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
    if (summary.id === selected) selectedChanged = true;
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
  if (selectedChanged) void openFromHash();
}

function scheduleFlush(): void {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(flush);
}

/** A row new or changed, shown at the next frame. */
function upsert(summary: DeliverySummary): void {
  // A row changed twice before a frame keeps the place of its first arrival.
  pending.set(summary.id, summary);
  // A hidden tab gets no frames: keep no more waiting than the list can show.
  for (const id of pending.keys()) {
    if (pending.size <= MAX_KEPT_DELIVERIES) break;
    pending.delete(id);
  }
  scheduleFlush();
}

function drop(id: string): void {
  pending.delete(id);
  dropped.add(id);
  scheduleFlush();
}

/** Replaces the list with the server's (at start and after the live stream reconnects). */
async function loadList(): Promise<void> {
  const load = getJson<{ deliveries: DeliverySummary[] }>('/deliveries').then(({ deliveries }) => {
    for (const { row } of listed.values()) row.remove();
    listed.clear();
    dropped.clear();
    const built = deliveries.map((summary) => {
      const row = buildRow(summary);
      return [summary, row] as const;
    });
    // The server lists newest first; the map keeps oldest first.
    for (const [summary, row] of [...built].reverse()) listed.set(summary.id, { summary, row });
    rows.replaceChildren(...built.map(([, row]) => row));
  });
  loading = load;
  try {
    await load;
  } finally {
    loading = undefined;
    // Live changes that arrived meanwhile: newer than the list, or already in it (updated in place).
    flush();
  }
}

function markSelected(previous: string | undefined): void {
  if (previous !== undefined) listed.get(previous)?.row.classList.remove('selected');
  if (selected !== undefined) listed.get(selected)?.row.classList.add('selected');
}

async function getJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`${API}${path}`, init);
  const body = (await response.json()) as T & { message?: string };
  if (!response.ok) throw new Error(body.message ?? `HTTP ${response.status}`);
  return body;
}

function definitionList(entries: ReadonlyArray<readonly [string, Node | string]>): HTMLElement {
  return element(
    'dl',
    {},
    ...entries.flatMap(([term, value]) => [
      element('dt', { textContent: term }),
      element('dd', {}, value),
    ]),
  );
}

function prettyBody(delivery: DeliveryDetail): string {
  if (delivery.bodyEncoding === 'base64') return '(not UTF-8 text: see the exact bytes, base64)';
  let parsed: unknown;
  try {
    parsed = JSON.parse(delivery.body);
  } catch {
    return delivery.bodyTruncated
      ? '(truncated: see the exact bytes)'
      : '(not JSON: see the exact bytes)';
  }
  if (nestedDeeperThan(delivery.body, MAX_PRETTY_DEPTH)) {
    return `(nested deeper than ${MAX_PRETTY_DEPTH} levels: see the exact bytes)`;
  }
  return JSON.stringify(parsed, null, 2);
}

function bodyViews(delivery: DeliveryDetail): HTMLElement {
  const pre = element('pre', { className: 'body' });
  pre.tabIndex = 0;
  const views = { pretty: prettyBody(delivery), exact: delivery.body } as const;
  const tabs = element('div', { className: 'tabs' });
  tabs.setAttribute('role', 'tablist');
  const show = (view: keyof typeof views): void => {
    pre.textContent = views[view];
    pre.dataset.view = view;
    for (const tab of tabs.querySelectorAll('button')) {
      tab.setAttribute('aria-selected', String(tab.dataset.view === view));
    }
  };
  for (const [view, label] of [
    ['pretty', 'Pretty'],
    ['exact', delivery.bodyEncoding === 'base64' ? 'Exact bytes (base64)' : 'Exact bytes'],
  ] as const) {
    const tab = element('button', { textContent: label });
    tab.type = 'button';
    tab.dataset.view = view;
    tab.setAttribute('role', 'tab');
    tab.addEventListener('click', () => show(view));
    tabs.append(tab);
  }
  show('pretty');
  const digest =
    delivery.bodySha256 === undefined
      ? 'SHA-256 unknown: the whole body was let go before this delivery was first opened'
      : `SHA-256 ${delivery.bodySha256}`;
  const truncated = delivery.bodyTruncated
    ? ` (kept truncated to the first ${MAX_KEPT_BODY_BYTES / 1024} KiB)`
    : '';
  const facts = `${delivery.bodyBytes} bytes, ${digest}${truncated}`;
  return element('div', {}, tabs, pre, element('p', { className: 'mono', textContent: facts }));
}

/**
 * What the last replay of each delivery answered ('sending…' while it runs), as a maker of the
 * result's content: the open detail is rebuilt whenever its delivery changes (its archive link
 * arrives, a consumer receives its message), and the answer must outlive that.
 */
const replayResults = new Map<string, () => (Node | string)[]>();

/** Keeps a replay's result for `id` and shows it in the open detail, if it is `id`'s. */
function showReplayResult(id: string, content: () => (Node | string)[]): void {
  replayResults.set(id, content);
  if (selected === id) detail.querySelector('.replay-result')?.replaceChildren(...content());
}

function replayButtons(delivery: DeliveryDetail): HTMLElement {
  const result = element('p', { className: 'replay-result' });
  result.setAttribute('role', 'status');
  result.replaceChildren(...(replayResults.get(delivery.id)?.() ?? []));
  const button = (label: string, fresh: boolean, primary: boolean): HTMLButtonElement => {
    const node = element('button', { textContent: label, className: primary ? 'primary' : '' });
    node.type = 'button';
    node.disabled = delivery.bodyTruncated;
    // The server refuses it too: a click must not sign someone else's body with the local key.
    if (fresh && delivery.freshSignatureRefusal !== undefined) {
      node.disabled = true;
      node.title = delivery.freshSignatureRefusal;
    }
    node.addEventListener('click', async () => {
      showReplayResult(delivery.id, () => ['sending…']);
      try {
        const answer = await getJson<{ status: number; delivery?: DeliverySummary }>(
          `/deliveries/${delivery.id}/replay${fresh ? '?fresh=1' : ''}`,
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
        );
        if (answer.delivery !== undefined) upsert(answer.delivery);
        const now =
          answer.delivery === undefined
            ? String(answer.status)
            : `${answer.delivery.status} ${answer.delivery.reason}`;
        const replayId = answer.delivery?.id;
        showReplayResult(delivery.id, () => [
          `Was ${delivery.status} ${delivery.reason}; replay answered ${now}. `,
          ...(replayId === undefined
            ? []
            : [element('a', { href: `#${replayId}`, textContent: 'Open the replay' })]),
        ]);
      } catch (error) {
        const reason = (error as Error).message;
        showReplayResult(delivery.id, () => [`Replay failed: ${reason}`]);
      }
    });
    return node;
  };
  return element(
    'div',
    {},
    element(
      'div',
      { className: 'actions' },
      button('Replay exact request', false, true),
      button('Replay with a fresh signature', true, false),
    ),
    result,
  );
}

function renderDetail(delivery: DeliveryDetail): void {
  const close = element('a', { href: '#', className: 'close', textContent: 'Close (Esc)' });
  const title = element(
    'h2',
    {},
    element('span', { textContent: `Delivery ${time(delivery.receivedAt)}` }),
    close,
  );
  title.id = 'detail-title';
  const parts: Node[] = [
    title,
    element('p', { className: 'verdict' }, statusBadge(delivery.status), ` ${delivery.reason}`),
    definitionList([
      ['Received', delivery.receivedAt],
      ['Request', `${delivery.method} ${delivery.endpoint}`],
      ['Request id', element('span', { className: 'mono', textContent: delivery.id })],
      ['Source address', element('span', { className: 'mono', textContent: delivery.sourceIp })],
      ...(delivery.webPageOrigin === undefined
        ? []
        : [
            [
              'Sent by',
              element(
                'span',
                { className: 'web-page' },
                'a web page at ',
                element('span', { className: 'mono', textContent: delivery.webPageOrigin }),
                ' (its browser added Origin, which the booking service never sends)',
              ),
            ] as const,
          ]),
      [
        'Signature skew',
        delivery.skewSeconds === undefined ? 'no readable t' : `${delivery.skewSeconds} s`,
      ],
      ...(delivery.replayOf === undefined
        ? []
        : [
            [
              'Replay of',
              element('a', { href: `#${delivery.replayOf}`, textContent: delivery.replayOf }),
            ] as const,
          ]),
    ]),
  ];
  if (delivery.diagnosis !== undefined) {
    parts.push(
      element('h3', {
        textContent:
          delivery.status === 401
            ? 'Why it was rejected (as npm run verify explains it)'
            : 'Why it was rejected',
      }),
      element(
        'ul',
        { className: 'diagnosis' },
        ...delivery.diagnosis.map((hint) => element('li', { textContent: hint })),
      ),
    );
  }
  if (delivery.noDiagnosis !== undefined) {
    parts.push(
      element('h3', { textContent: 'Why it was rejected (as npm run verify explains it)' }),
      element('p', {
        className: 'no-diagnosis',
        textContent: `No diagnosis: ${delivery.noDiagnosis}`,
      }),
    );
  }
  if (delivery.message !== undefined) {
    const { message } = delivery;
    parts.push(
      element('h3', { textContent: 'In the local queue' }),
      definitionList([
        ['Message id', element('span', { className: 'mono', textContent: message.messageId })],
        [
          'State',
          message.consumed
            ? 'consumed (deleted by a consumer)'
            : message.receiveCount > 0
              ? `received ${message.receiveCount}×, not deleted yet`
              : 'waiting in the queue',
        ],
        ...Object.entries(message.attributes).map(
          ([name, value]) =>
            [name, element('span', { className: 'mono', textContent: value })] as const,
        ),
      ]),
    );
  }
  if (delivery.archive !== undefined) {
    const { archive } = delivery;
    parts.push(
      element('h3', { textContent: 'In the archive' }),
      definitionList([
        [
          'Object',
          element('a', {
            className: 'mono',
            href: archive.url,
            textContent: archive.key,
          }),
        ],
      ]),
    );
  }
  parts.push(
    element('h3', { textContent: 'Replay' }),
    replayButtons(delivery),
    element('h3', { textContent: 'Request headers (as sent)' }),
    definitionList(
      delivery.headers.map(
        ([name, value]) =>
          [name, element('span', { className: 'mono', textContent: value })] as const,
      ),
    ),
    element('h3', { textContent: 'Body as received' }),
    bodyViews(delivery),
    element('h3', { textContent: 'Response' }),
    element('pre', { textContent: delivery.response }),
  );
  detail.replaceChildren(...parts);
  detail.hidden = false;
  document.querySelector('main')?.classList.add('with-detail');
}

async function openFromHash(): Promise<void> {
  const id = decodeURIComponent(location.hash.slice(1));
  const previous = selected;
  selected = id === '' ? undefined : id;
  markSelected(previous);
  if (selected === undefined) {
    detail.hidden = true;
    document.querySelector('main')?.classList.remove('with-detail');
    return;
  }
  const response = await fetch(`${API}/deliveries/${encodeURIComponent(selected)}`);
  // Another delivery was opened meanwhile (or the detail closed): its answer is the one to show.
  if (selected !== id) return;
  if (response.status === 404 && listed.has(selected)) {
    // Dropped on the server before its row was: it goes from the list too, and says why.
    remove(selected);
    renderCount();
    detail.replaceChildren(
      element('p', {
        textContent: `This delivery is no longer kept: the inspector keeps the last ${MAX_KEPT_DELIVERIES}.`,
      }),
    );
    detail.hidden = false;
    return;
  }
  try {
    const body = (await response.json()) as DeliveryDetail & { message?: string };
    if (selected !== id) return;
    if (!response.ok) throw new Error(body.message ?? `HTTP ${response.status}`);
    renderDetail(body);
    detail.focus({ preventScroll: true });
  } catch (error) {
    detail.replaceChildren(
      element('p', { textContent: `Cannot open ${selected}: ${(error as Error).message}` }),
    );
    detail.hidden = false;
  }
}

function connect(): void {
  const live = byId('live');
  const stream = new EventSource(`${API}/stream`);
  stream.addEventListener('open', () => {
    live.textContent = 'live';
    live.classList.add('on');
    // First connection or a reconnection: what was missed meanwhile comes with the list.
    void loadList();
  });
  stream.addEventListener('error', () => {
    live.textContent = 'reconnecting…';
    live.classList.remove('on');
  });
  stream.addEventListener('delivery', (event) => {
    upsert(JSON.parse((event as MessageEvent<string>).data) as DeliverySummary);
  });
  stream.addEventListener('dropped', (event) => {
    drop((JSON.parse((event as MessageEvent<string>).data) as { id: string }).id);
  });
}

statusFilter.addEventListener('change', applyFilters);
bookingSearch.addEventListener('input', applyFilters);
byId('filters').addEventListener('submit', (event) => event.preventDefault());
window.addEventListener('hashchange', () => void openFromHash());
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && selected !== undefined) {
    const row = rows.querySelector<HTMLAnchorElement>(`tr[data-id="${CSS.escape(selected)}"] a`);
    history.pushState(null, '', location.pathname);
    void openFromHash().then(() => row?.focus());
  }
});

connect();
await openFromHash();
