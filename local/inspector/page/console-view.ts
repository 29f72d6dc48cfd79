/// <reference lib="dom" />
/**
 * The page over the console's archive (`npm run inspect`): the window and the server's filters,
 * what reading the archive found, a replay of the listed selection and the dead letters with
 * their redrive, each action after a confirmation that says what goes where.
 * @module
 */
import type { DeliverySummary } from '../delivery.js';
import { button, byId, confirmButton, definitionList, element, getJson, POST_JSON } from './dom.js';
import { loadList, state } from './list.js';

/** What the console says about itself (`GET /_inspector/api/source`). */
export interface ConsoleSource {
  readonly source: 'archive';
  readonly target: string;
  readonly queue?: string;
  readonly deadLetterQueue?: string;
  readonly note: string;
}

/** A page of the console's list. */
interface ArchivePage {
  deliveries: DeliverySummary[];
  matched: number;
  nextOffset?: number;
  window: { from: string; to: string };
  archive: { objects: number; malformedLines: number; malformedObjects: number };
}

/** The query fields of the window form: name, label, placeholder. */
const FIELDS = [
  ['from', 'From', 'ISO 8601, default an hour ago'],
  ['to', 'To', 'ISO 8601, default now'],
  ['endpoint', 'Endpoint', 'name, with several'],
  ['status', 'Status', 'e.g. 401 or 4'],
  ['reason', 'Reason', 'e.g. signature_mismatch'],
  ['event', 'Event', 'e.g. event_booked'],
  ['q', 'Request id or dedup key', ''],
] as const;

/** Starts the page over the console's archive. */
export async function startArchiveView(source: ConsoleSource): Promise<void> {
  state.mode = 'archive';
  state.queue = source.queue ?? '';
  const live = byId('live');
  live.textContent = `archive of ${source.target}`;
  const form = element('form', { className: 'filters' });
  form.id = 'window';
  const inputs = new Map<string, HTMLInputElement>();
  for (const [name, label, placeholder] of FIELDS) {
    const input = element('input');
    input.name = name;
    input.placeholder = placeholder;
    input.autocomplete = 'off';
    inputs.set(name, input);
    form.append(element('label', {}, label, input));
  }
  const read = element('button', { textContent: 'Read the archive', className: 'primary' });
  read.type = 'submit';
  form.append(read);
  const facts = element('p', { className: 'count' });
  facts.id = 'archive-facts';
  const selection = element('div');
  const more = element('div');
  const list = byId('deliveries');
  list.before(
    form,
    element('p', { className: 'mono', textContent: source.note }),
    facts,
    selection,
  );
  list.after(more);

  const query = (offset = 0): string => {
    const params = new URLSearchParams();
    for (const [name, input] of inputs) {
      if (input.value.trim() !== '') params.set(name, input.value.trim());
    }
    if (offset > 0) params.set('offset', String(offset));
    return params.toString();
  };
  const load = async (offset = 0): Promise<void> => {
    const page = await loadList<ArchivePage>(`/deliveries?${query(offset)}`);
    if (page === undefined) return;
    // Details and replays use the window the list was read for.
    state.query = new URLSearchParams({ from: page.window.from, to: page.window.to }).toString();
    const { objects, malformedLines, malformedObjects } = page.archive;
    facts.textContent = `${page.matched} matching from ${page.window.from} to ${page.window.to}; ${objects} archive objects read${malformedLines > 0 ? `, ${malformedLines} malformed lines in ${malformedObjects} objects skipped` : ''}`;
    selection.replaceChildren(replaySelection(page, query()));
    more.replaceChildren(
      ...(page.nextOffset === undefined
        ? []
        : [button('Next page', '', () => void load(page.nextOffset))]),
    );
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  if (source.deadLetterQueue !== undefined) {
    byId('deliveries').parentElement?.append(deadLetters(source.deadLetterQueue));
  }
  await load();
}

/** A replay of every replayable delivery the query selects, after a confirmation. */
function replaySelection(page: ArchivePage, query: string): HTMLElement {
  const replayable = page.deliveries.filter(
    (row) => (row as DeliverySummary & { replayable?: boolean }).replayable,
  ).length;
  const result = element('p', { className: 'replay-result' });
  result.setAttribute('role', 'status');
  const estimate = page.nextOffset === undefined ? `${replayable}` : `at least ${replayable}`;
  const send = async (): Promise<void> => {
    result.textContent = 'sending…';
    try {
      const report = await getJson<{
        sent: number;
        total: number;
        refused: number;
        refusals: { key: string; requestId?: string; reason: string }[];
      }>(`/deliveries/replay?${query}`, POST_JSON);
      result.replaceChildren(
        `Sent ${report.sent} of ${report.total} to ${state.queue}; the queue refused ${report.refused}.`,
        ...report.refusals.map((refusal) =>
          element('span', {
            className: 'mono',
            textContent: ` ${refusal.requestId ?? refusal.key}: ${refusal.reason}`,
          }),
        ),
      );
    } catch (error) {
      result.textContent = `Replay failed: ${(error as Error).message}`;
    }
  };
  return element(
    'div',
    {},
    confirmButton(
      'Replay the selection',
      () =>
        `Send the ${estimate} replayable deliveries of this selection to ${state.queue}, at most 10 a second?`,
      send,
    ),
    result,
  );
}

/** The dead-letter queue's messages, listed on request, and their redrive. */
function deadLetters(queueUrl: string): HTMLElement {
  const body = element('div');
  const result = element('p', { className: 'replay-result' });
  result.setAttribute('role', 'status');
  const show = async (): Promise<void> => {
    try {
      const answer = await getJson<{
        deadLetters: {
          messageId: string;
          body: string;
          attributes: Record<string, string>;
          receiveCount: number;
          firstReceivedAt?: string;
        }[];
      }>('/dead-letters');
      body.replaceChildren(
        element('p', {
          className: 'count',
          textContent: `${answer.deadLetters.length} messages (listing them leaves them in the queue and adds one to their receive count)`,
        }),
        ...answer.deadLetters.map((letter) =>
          element(
            'div',
            { className: 'dead-letter' },
            definitionList([
              ['Message id', letter.messageId],
              ['Receive count', String(letter.receiveCount)],
              ['First received', letter.firstReceivedAt ?? '–'],
              ...Object.entries(letter.attributes),
            ]),
            element('pre', { className: 'body', textContent: letter.body }),
          ),
        ),
      );
    } catch (error) {
      body.textContent = `Cannot list the dead letters: ${(error as Error).message}`;
    }
  };
  const redrive = async (): Promise<void> => {
    result.textContent = 'moving…';
    try {
      const answer = await getJson<{ message: string }>('/dead-letters/redrive', POST_JSON);
      result.textContent = answer.message;
    } catch (error) {
      result.textContent = `Redrive failed: ${(error as Error).message}`;
    }
  };
  const section = element(
    'section',
    { className: 'dead-letters' },
    element('h2', { textContent: 'Dead letters' }),
    element('p', { className: 'mono', textContent: queueUrl }),
    element(
      'div',
      { className: 'actions' },
      button('List dead letters', '', () => void show()),
      confirmButton(
        'Redrive all',
        () => `Move every message of ${queueUrl} back to ${state.queue}?`,
        redrive,
      ),
    ),
    result,
    body,
  );
  section.id = 'dead-letters';
  return section;
}
