// A few helpers to build the page from plain DOM calls: no framework, no HTML strings (so no
// server data is ever parsed as markup).

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | ((ev: Event) => void) | undefined>;

/** An element with attributes (`on<event>` attaches a listener) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

/** A button whose visible text is its accessible name, or `label` when the text is short. */
export function button(text: string, onClick: () => void, label?: string): HTMLButtonElement {
  return h('button', { type: 'button', 'aria-label': label, onclick: () => onClick() }, text);
}

/** A labelled input: the label names it for screen readers. */
export function field(
  label: string,
  attrs: Attrs = {},
): { wrap: HTMLLabelElement; input: HTMLInputElement } {
  const input = h('input', { type: 'text', ...attrs });
  return { wrap: h('label', {}, h('span', {}, label), input), input };
}

/** A table with a caption (its accessible name), column headers and rows. */
export function table(caption: string, headers: string[], rows: Child[][]): HTMLTableElement {
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((c) => h('td', {}, c))))),
  );
}

/** Replaces `el`'s content. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren(
    ...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false),
  );
}

/** Shows `message` in the page's live status region (read out by screen readers). */
export function announce(message: string, error = false): void {
  const status = document.getElementById('status')!;
  status.textContent = message;
  status.className = error ? 'error' : '';
}
