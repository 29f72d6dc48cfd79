/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The inspector page: the list (live through server-sent events), filters, the detail of one
 * delivery and the replay buttons. Plain DOM; every value is set as text, never as HTML.
 * @module
 */
import type { DeliveryDetail, DeliverySummary } from '../delivery.js';

const API = '/_inspector/api';
const deliveries = new Map<string, DeliverySummary>();
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

function renderList(): void {
  const all = [...deliveries.values()].sort((a, b) => b.receivedAt.localeCompare(a.receivedAt));
  const shown = all.filter(visible);
  rows.replaceChildren(
    ...shown.map((summary) => {
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
      if (summary.replayOf !== undefined) row.classList.add('replay');
      if (summary.id === selected) row.classList.add('selected');
      return row;
    }),
  );
  byId('empty').hidden = all.length > 0;
  const noun = all.length === 1 ? 'delivery' : 'deliveries';
  byId('count').textContent =
    shown.length === all.length
      ? `${all.length} ${noun}`
      : `${shown.length} of ${all.length} shown`;
}

function upsert(summary: DeliverySummary): void {
  deliveries.set(summary.id, summary);
  renderList();
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
  try {
    return JSON.stringify(JSON.parse(delivery.body), null, 2);
  } catch {
    return delivery.bodyTruncated
      ? '(truncated: see the exact bytes)'
      : '(not JSON: see the exact bytes)';
  }
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
  const facts = `${delivery.bodyBytes} bytes, SHA-256 ${delivery.bodySha256}${delivery.bodyTruncated ? ' (kept truncated to the first 64 KiB)' : ''}`;
  return element('div', {}, tabs, pre, element('p', { className: 'mono', textContent: facts }));
}

function replayButtons(delivery: DeliveryDetail): HTMLElement {
  const result = element('p', { className: 'replay-result' });
  result.setAttribute('role', 'status');
  const button = (label: string, fresh: boolean, primary: boolean): HTMLButtonElement => {
    const node = element('button', { textContent: label, className: primary ? 'primary' : '' });
    node.type = 'button';
    node.disabled = delivery.bodyTruncated;
    node.addEventListener('click', async () => {
      result.textContent = 'sending…';
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
        result.replaceChildren(
          `Was ${delivery.status} ${delivery.reason}; replay answered ${now}. `,
          ...(answer.delivery === undefined
            ? []
            : [element('a', { href: `#${answer.delivery.id}`, textContent: 'Open the replay' })]),
        );
      } catch (error) {
        result.textContent = `Replay failed: ${(error as Error).message}`;
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
  selected = id === '' ? undefined : id;
  renderList();
  if (selected === undefined) {
    detail.hidden = true;
    document.querySelector('main')?.classList.remove('with-detail');
    return;
  }
  try {
    renderDetail(await getJson<DeliveryDetail>(`/deliveries/${encodeURIComponent(selected)}`));
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
  });
  stream.addEventListener('error', () => {
    live.textContent = 'reconnecting…';
    live.classList.remove('on');
  });
  stream.addEventListener('delivery', (event) => {
    const summary = JSON.parse((event as MessageEvent<string>).data) as DeliverySummary;
    upsert(summary);
    if (summary.id === selected) void openFromHash();
  });
}

statusFilter.addEventListener('change', renderList);
bookingSearch.addEventListener('input', renderList);
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
for (const summary of (await getJson<{ deliveries: DeliverySummary[] }>('/deliveries'))
  .deliveries) {
  deliveries.set(summary.id, summary);
}
await openFromHash();
