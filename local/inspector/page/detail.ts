/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The detail of one delivery: verdict, diagnosis, queue message, archive object, replay buttons,
 * headers and body (pretty, and the exact bytes), opened from the URL's hash.
 * @module
 */
import { nestedDeeperThan } from '../../../devkit/json-depth.js';
import type { DeliveryDetail, DeliverySummary } from '../delivery.js';
import { MAX_KEPT_BODY_BYTES, MAX_KEPT_DELIVERIES, MAX_PRETTY_DEPTH } from '../limits.js';
import {
  API,
  byId,
  confirmButton,
  definitionList,
  element,
  getJson,
  POST_JSON,
  statusBadge,
  time,
} from './dom.js';
import { listed, markSelected, onListEvents, remove, renderCount, state, upsert } from './list.js';

const detail = byId<HTMLElement>('detail');

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
  if (state.selected === id) detail.querySelector('.replay-result')?.replaceChildren(...content());
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
          POST_JSON,
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

/**
 * The console's replay of an archived delivery: its message straight into the queue, after a
 * confirmation that names the queue; what is not replayable says why instead.
 */
function queueReplay(delivery: DeliveryDetail & { notReplayable?: string }): HTMLElement {
  const result = element('p', { className: 'replay-result' });
  result.setAttribute('role', 'status');
  result.replaceChildren(...(replayResults.get(delivery.id)?.() ?? []));
  if (delivery.notReplayable !== undefined) {
    return element('p', { className: 'no-diagnosis', textContent: delivery.notReplayable });
  }
  const send = async (): Promise<void> => {
    showReplayResult(delivery.id, () => ['sending…']);
    try {
      await getJson(`/deliveries/${delivery.id}/replay?${state.query}`, POST_JSON);
      showReplayResult(delivery.id, () => [`Sent 1 delivery to ${state.queue}.`]);
    } catch (error) {
      const reason = (error as Error).message;
      showReplayResult(delivery.id, () => [`Not sent: ${reason}`]);
    }
  };
  return element(
    'div',
    {},
    confirmButton('Replay into the queue', () => `Send 1 delivery to ${state.queue}?`, send),
    result,
  );
}

export function renderDetail(delivery: DeliveryDetail): void {
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
    state.mode === 'archive' ? queueReplay(delivery) : replayButtons(delivery),
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

export async function openFromHash(): Promise<void> {
  const id = decodeURIComponent(location.hash.slice(1));
  const previous = state.selected;
  state.selected = id === '' ? undefined : id;
  markSelected(previous);
  if (state.selected === undefined) {
    detail.hidden = true;
    document.querySelector('main')?.classList.remove('with-detail');
    return;
  }
  const response = await fetch(
    `${API}/deliveries/${encodeURIComponent(state.selected)}${state.query === '' ? '' : `?${state.query}`}`,
  );
  // Another delivery was opened meanwhile (or the detail closed): its answer is the one to show.
  if (state.selected !== id) return;
  if (response.status === 404 && listed.has(state.selected)) {
    // Dropped on the server before its row was: it goes from the list too, and says why.
    remove(state.selected);
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
    if (state.selected !== id) return;
    if (!response.ok) throw new Error(body.message ?? `HTTP ${response.status}`);
    renderDetail(body);
    detail.focus({ preventScroll: true });
  } catch (error) {
    detail.replaceChildren(
      element('p', { textContent: `Cannot open ${state.selected}: ${(error as Error).message}` }),
    );
    detail.hidden = false;
  }
}

onListEvents({
  selectedChanged: () => void openFromHash(),
  removed: (id) => replayResults.delete(id),
});
