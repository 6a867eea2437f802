/** Notices about the transcript as a whole (earlier messages gone from the service, local drops); a gap in the middle is rows.ts's. */
import { format, type TranscriptInfo, type WebviewStrings } from '../common/protocol';
import { formatNumber } from '../common/render';
import { clear, h } from './dom';

export class Notices {
  readonly el: HTMLElement;

  constructor(
    private readonly doc: Document,
    private readonly S: WebviewStrings,
    private readonly locale: string,
  ) {
    this.el = h(doc, 'div', { class: 'notices' });
  }

  render(t: TranscriptInfo): void {
    const { doc, S } = this;
    clear(this.el);
    if (t.earlierMessagesUnavailable) {
      const text = t.missingMessageCount > 0
        ? `${S.earlierUnavailable} ${format(S.missingMessages, formatNumber(t.missingMessageCount, this.locale))}`
        : S.earlierUnavailable;
      this.el.appendChild(h(doc, 'p', { class: 'notice notice-earlier' }, text));
    }
    if (t.droppedMessageCount > 0) {
      this.el.appendChild(h(doc, 'p', { class: 'notice notice-dropped' }, format(S.droppedMessages, formatNumber(t.droppedMessageCount, this.locale))));
    }
  }
}
