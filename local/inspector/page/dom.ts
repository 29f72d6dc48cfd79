/// <reference lib="dom" />
/**
 * The page's small DOM helpers: elements built with their text set as text (never as HTML),
 * badges, times, sizes, and the JSON API's one fetch.
 * @module
 */

/** Where the page's JSON API lives. */
export const API = '/_inspector/api';

export const byId = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<'className' | 'textContent' | 'href' | 'title', string>> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

export function statusBadge(status: number): HTMLElement {
  return element('span', {
    className: `status s${String(status)[0]}`,
    textContent: String(status),
  });
}

export function time(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour12: false });
}

export function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

export function cell(
  className: string,
  label: string,
  ...content: Array<Node | string>
): HTMLElement {
  const td = element('td', { className }, ...content);
  if (label !== '') td.dataset.label = label;
  return td;
}

export function definitionList(
  entries: ReadonlyArray<readonly [string, Node | string]>,
): HTMLElement {
  return element(
    'dl',
    {},
    ...entries.flatMap(([term, value]) => [
      element('dt', { textContent: term }),
      element('dd', {}, value),
    ]),
  );
}

/** A button of type `button` that runs `onClick`. */
export function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
  const node = element('button', { textContent: label, className });
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}

/** The API's JSON answer at `path`; an answer other than 2xx throws its `message`. */
export async function getJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`${API}${path}`, init);
  const body = (await response.json()) as T & { message?: string };
  if (!response.ok) throw new Error(body.message ?? `HTTP ${response.status}`);
  return body;
}

/** A POST of `{}` as JSON, as the API's actions take it. */
export const POST_JSON: RequestInit = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{}',
};

/**
 * A button that asks before it acts: a click shows `question()` with Confirm and Cancel, and
 * only Confirm runs `act`. Replays and redrives write to the operator's queues.
 */
export function confirmButton(
  label: string,
  question: () => string,
  act: () => Promise<void>,
): HTMLElement {
  const box = element('div', { className: 'actions' });
  const ask = (): void => {
    const confirm = button('Confirm', 'primary', () => {
      box.replaceChildren(start);
      void act();
    });
    box.replaceChildren(
      element('span', { className: 'question', textContent: question() }),
      confirm,
      button('Cancel', '', () => box.replaceChildren(start)),
    );
    confirm.focus();
  };
  const start = button(label, 'primary', ask);
  box.append(start);
  return box;
}
