/** Small DOM helpers. Everything goes through textContent/attributes: no HTML strings here. */

export type Attrs = Record<string, string | number | boolean | undefined>;
export type Child = Node | string | undefined | null | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) {
      continue;
    }
    el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === undefined || c === null || c === false) {
      continue;
    }
    el.appendChild(typeof c === 'string' ? el.ownerDocument!.createTextNode(c) : c);
  }
}

export function clear(el: Element): void {
  while (el.firstChild) {
    el.removeChild(el.firstChild);
  }
}

export function setHidden(el: Element, hidden: boolean): void {
  if (hidden) {
    el.setAttribute('hidden', '');
  } else {
    el.removeAttribute('hidden');
  }
}

/** Only sets text when it differs, so periodic refreshes do not churn the DOM. */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) {
    el.textContent = text;
  }
}

/** The nearest element matching `selector` from an event target, or undefined. */
export function closestFrom(target: EventTarget | null, selector: string): HTMLElement | undefined {
  const t = target as (Element & { closest?: (s: string) => Element | null }) | null;
  if (!t || typeof t.closest !== 'function') {
    return undefined;
  }
  return t.closest<HTMLElement>(selector) ?? undefined;
}
