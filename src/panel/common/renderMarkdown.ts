/**
 * The panel's restricted Markdown renderer, with render.ts's defences: raw HTML off, only
 * http/https/mailto links in every link form, links and images inert `<a data-href>`, no `style`.
 */
import MarkdownIt from 'markdown-it';
import { isSafeLinkUrl } from './links';
import { escapeHtml, neutralizeText } from './renderText';
import { format } from './webviewStrings';

/**
 * The opening tag of an inert link: no `href`, the URL in `data-href` for the webview's click
 * handler. Only for URLs that passed `isSafeLinkUrl`.
 */
export function linkOpen(url: string): string {
  const u = escapeHtml(url);
  return `<a class="md-link" role="link" tabindex="0" data-href="${u}" title="${u}">`;
}

interface MdEnv {
  imageLabel: string;
  /** For each open link: whether it was rendered as an `<a>` (true) or a `<span>` (false). */
  linkStack: boolean[];
}

function createMarkdown(): MarkdownIt {
  const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false, xhtmlOut: false });
  // Deeply nested lists/quotes cost recursion depth; 20 levels is plenty for messages.
  (md.options as MarkdownIt.Options & { maxNesting?: number }).maxNesting = 20;
  md.validateLink = isSafeLinkUrl;

  const rules = md.renderer.rules;
  rules.link_open = (tokens, idx, _options, env: MdEnv) => {
    const href = tokens[idx]?.attrGet('href') ?? '';
    const ok = isSafeLinkUrl(href);
    env.linkStack.push(ok);
    return ok ? linkOpen(href) : '<span class="md-link-invalid">';
  };
  rules.link_close = (_tokens, _idx, _options, env: MdEnv) => (env.linkStack.pop() ? '</a>' : '</span>');
  rules.image = (tokens, idx, options, env: MdEnv, self) => {
    const token = tokens[idx];
    const src = token?.attrGet('src') ?? '';
    const alt = token?.children ? self.renderInlineAsText(token.children, options, env) : '';
    const label = escapeHtml(format(env.imageLabel, alt || src));
    return isSafeLinkUrl(src) ? `${linkOpen(src)}${label}</a>` : `<span class="md-image-invalid">${label}</span>`;
  };
  // Table alignment arrives as a `style` attribute; no style attribute ever leaves this module.
  for (const name of ['th_open', 'td_open']) {
    rules[name] = (tokens, idx, options, _env, self) => {
      const token = tokens[idx];
      if (token?.attrs) {
        const style = token.attrGet('style') ?? '';
        token.attrs = token.attrs.filter(([k]) => k !== 'style');
        const m = /text-align:(left|center|right)/.exec(style);
        if (m) {
          token.attrJoin('class', `align-${m[1]}`);
        }
      }
      return self.renderToken(tokens, idx, options);
    };
  }
  return md;
}

let markdown: MarkdownIt | undefined;

/** Markdown to HTML (raw HTML off, http/https/mailto links only); the caller cuts the input, this neutralizes controls. */
export function renderMarkdown(text: string, opts: { imageLabel?: string } = {}): string {
  markdown ??= createMarkdown();
  const env: MdEnv = { imageLabel: opts.imageLabel ?? '{0}', linkStack: [] };
  return markdown.render(neutralizeText(text), env);
}
