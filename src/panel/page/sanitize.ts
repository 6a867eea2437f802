/**
 * The last line before HTML reaches the webview's DOM: the renderers already escape, this
 * re-checks with DOMPurify and then walks the tree with the same allow-list, so a DOMPurify
 * misconfiguration or an unsupported environment still lets nothing else through.
 */
import DOMPurify from 'dompurify';
import { isSafeLinkUrl } from '../common/protocol';

export const ALLOWED_TAGS = [
  'a', 'article', 'header', 'p', 'br', 'hr', 'em', 'strong', 's', 'del', 'code', 'pre', 'blockquote',
  'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
  'span', 'div', 'time', 'details', 'summary', 'button', 'bdi',
];
/** Attributes whose values are not URLs (DOMPurify would otherwise test them as URLs). */
const PLAIN_ATTRS = ['class', 'title', 'dir', 'role', 'tabindex', 'aria-label', 'datetime', 'data-key', 'data-action', 'data-ts', 'start', 'type', 'open'];
/** `data-href` is the only URL-bearing attribute, and only http/https/mailto pass. */
export const ALLOWED_ATTRS = [...PLAIN_ATTRS, 'data-href'];

const TAGS = new Set(ALLOWED_TAGS);
const ATTRS = new Set(ALLOWED_ATTRS);
const ROLES = new Set(['link', 'group']);
const ACTIONS = new Set(['copy-message', 'copy-params', 'open-in-editor']);

function attrOk(tag: string, name: string, value: string): boolean {
  if (!ATTRS.has(name)) {
    return false;
  }
  switch (name) {
    case 'data-href':
      return isSafeLinkUrl(value);
    case 'dir':
      return value === 'auto' || value === 'ltr' || value === 'rtl';
    case 'tabindex':
      return value === '0' || value === '-1';
    case 'role':
      return ROLES.has(value);
    case 'type':
      return tag === 'button' && value === 'button';
    case 'data-action':
      return ACTIONS.has(value);
    case 'open':
      return tag === 'details' && value === '';
    case 'start':
    case 'data-ts':
      return /^-?\d{1,16}$/.test(value);
    default:
      return true;
  }
}

/**
 * Removes every element whose tag is not allowed (with its content) and every attribute not
 * allowed on the rest. Works on any DOM (browser, linkedom). Returns how much it removed.
 */
export function enforceAllowList(root: ParentNode): number {
  let removed = 0;
  const stack: Element[] = Array.from(root.children);
  while (stack.length > 0) {
    const el = stack.pop()!;
    const tag = el.localName.toLowerCase();
    if (!TAGS.has(tag) || (el.namespaceURI !== null && el.namespaceURI !== 'http://www.w3.org/1999/xhtml')) {
      el.remove();
      removed++;
      continue;
    }
    for (const name of el.getAttributeNames()) {
      const lc = name.toLowerCase();
      if (!attrOk(tag, lc, el.getAttribute(name) ?? '')) {
        el.removeAttribute(name);
        removed++;
      }
    }
    for (const child of Array.from(el.children)) {
      stack.push(child);
    }
  }
  return removed;
}

/** Turns trusted-renderer HTML into a sanitized fragment owned by the given document. */
export type Sanitizer = (html: string) => DocumentFragment;

/** Template parsing (inert: no scripts run, no resources load) plus the allow-list walk. */
export function createAllowListSanitizer(doc: Document): Sanitizer {
  return (html) => {
    const t = doc.createElement('template');
    t.innerHTML = html;
    const frag = t.content;
    enforceAllowList(frag);
    return frag;
  };
}

/**
 * DOMPurify with the allow-list, then the walk; the walk alone where DOMPurify reports the
 * environment unsupported, since it then returns its input unchanged.
 */
export function createSanitizer(win: Window & typeof globalThis, warn: (msg: string) => void): Sanitizer {
  const purify = DOMPurify(win);
  if (!purify.isSupported) {
    warn('DOMPurify is not supported here; using the allow-list walk only.');
    return createAllowListSanitizer(win.document);
  }
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    if (!attrOk(node.localName.toLowerCase(), data.attrName, data.attrValue)) {
      data.keepAttr = false;
    }
  });
  // Set once: passed to each sanitize() call, the configuration would be parsed again every time.
  purify.setConfig({
    // '#text': with a custom tag list DOMPurify would otherwise drop every text node.
    ALLOWED_TAGS: [...ALLOWED_TAGS, '#text'],
    ALLOWED_ATTR: ALLOWED_ATTRS,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOW_UNKNOWN_PROTOCOLS: false,
    ADD_URI_SAFE_ATTR: PLAIN_ATTRS,
    ALLOWED_URI_REGEXP: /^(?:https?:\/\/|mailto:)/i,
    KEEP_CONTENT: false,
    RETURN_DOM_FRAGMENT: true,
  });
  const fallback = createAllowListSanitizer(win.document);
  return (html) => {
    // A DocumentFragment under the configuration set above (RETURN_DOM_FRAGMENT); anything
    // else would mean the configuration did not apply, and is never used.
    const out: unknown = purify.sanitize(html);
    if (!(out instanceof win.DocumentFragment)) {
      warn('DOMPurify did not return a fragment; using the allow-list walk only.');
      return fallback(html);
    }
    enforceAllowList(out);
    return out;
  };
}
