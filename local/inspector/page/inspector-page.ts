/// <reference lib="dom" />
/**
 * The inspector page: the list (live through server-sent events, or read from the archive by the
 * console: console-view.ts), filters, the detail of one delivery and the replay buttons (list.ts,
 * detail.ts). Plain DOM; every value is set as text,
 * never as HTML.
 *
 * The list stays responsive under bursts: changes are gathered and applied once per frame, and
 * only the rows that changed are built; it keeps the server's order and its cap.
 * @module
 */
import type { DeliverySummary } from '../delivery.js';
import { type ConsoleSource, startArchiveView } from './console-view.js';
import { openFromHash } from './detail.js';
import { API, byId } from './dom.js';
import { drop, loadList, state, upsert } from './list.js';

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

byId('filters').addEventListener('submit', (event) => event.preventDefault());
window.addEventListener('hashchange', () => void openFromHash());
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && state.selected !== undefined) {
    const row = byId('rows').querySelector<HTMLAnchorElement>(
      `tr[data-id="${CSS.escape(state.selected)}"] a`,
    );
    history.pushState(null, '', location.pathname);
    void openFromHash().then(() => row?.focus());
  }
});

/**
 * The console (`npm run inspect`) says what it serves at `api/source`; `npm start`'s inspector
 * has no such path, and streams its deliveries live.
 */
async function consoleSource(): Promise<ConsoleSource | undefined> {
  const response = await fetch(`${API}/source`);
  if (!response.ok) return undefined;
  const body = (await response.json()) as Partial<ConsoleSource>;
  return body.source === 'archive' ? (body as ConsoleSource) : undefined;
}

const source = await consoleSource();
if (source === undefined) connect();
else await startArchiveView(source);
await openFromHash();
