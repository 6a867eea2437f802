/**
 * The lifecycle section: one lane per state machine with time per state, queued turns and the
 * stall warning; an unchanged lane is updated in place.
 */
import { format, type ActivityView, type LifecycleView, type WebviewStrings } from '../common/protocol';
import { laneDurations, stallCheck } from '../common/lifecycle';
import { formatDuration, formatNumber, formatRelativeTime, isValidTimestamp, neutralizeText } from '../common/render';
import { clear, h, setHidden, setText } from './dom';

type LaneName = 'conversation' | 'sandbox';

export class LifecycleSection {
  readonly el: HTMLElement;
  private readonly lanes: Record<LaneName, { bar: HTMLElement; list: HTMLElement }>;
  private readonly meta: HTMLElement;
  private readonly stall: HTMLElement;
  /** What each lane shows (its states and which is current), to update it in place. */
  private readonly shown: Record<LaneName, string> = { conversation: '', sandbox: '' };

  constructor(
    private readonly doc: Document,
    private readonly S: WebviewStrings,
    private readonly locale: string,
  ) {
    const lane = (label: string) => {
      const bar = h(doc, 'div', { class: 'lane-bar', 'aria-hidden': 'true' });
      const list = h(doc, 'ul', { class: 'lane-states' });
      const el = h(doc, 'div', { class: 'lane' }, h(doc, 'div', { class: 'lane-name' }, label), bar, list);
      return { el, bar, list };
    };
    const conv = lane(S.laneConversation);
    const sand = lane(S.laneSandbox);
    this.lanes = { conversation: conv, sandbox: sand };
    this.meta = h(doc, 'div', { class: 'lifecycle-meta' });
    this.stall = h(doc, 'div', { class: 'stall-warning', role: 'status', hidden: true });
    this.el = h(
      doc,
      'section',
      { class: 'lifecycle', 'aria-label': S.lifecycleTitle },
      h(doc, 'h2', { class: 'section-title' }, S.lifecycleTitle),
      conv.el,
      sand.el,
      this.meta,
      this.stall,
    );
  }

  /** `takesFollowUps` false: the stall warning does not suggest a follow-up (a code review's conversation). */
  render(lc: LifecycleView, activity: ActivityView, status: string | undefined, now: number, takesFollowUps = true): void {
    for (const name of ['conversation', 'sandbox'] as const) {
      this.renderLane(name, lc, now);
    }
    const S = this.S;
    const meta: string[] = [];
    if (lc.queuedTurnCount !== undefined) {
      const n = lc.queuedTurnCount;
      meta.push(n === 0 ? S.noQueuedTurns : format(n === 1 ? S.queuedTurn : S.queuedTurns, formatNumber(n, this.locale)));
    }
    if (isValidTimestamp(lc.lastLifecycleEventAt)) {
      meta.push(format(S.lastLifecycleEvent, formatRelativeTime(lc.lastLifecycleEventAt, now, this.locale)));
    }
    setText(this.meta, meta.join(' · '));
    const stall = stallCheck({ status, lastActivityAt: activity.lastActivityAt, now, stallAfterMs: activity.stallAfterMs });
    if (stall.stalled) {
      setText(this.stall, format(takesFollowUps ? S.stalled : S.stalledNoFollowUps, formatDuration(stall.idleMs, this.locale)));
    }
    setHidden(this.stall, !stall.stalled);
  }

  private renderLane(name: LaneName, lc: LifecycleView, now: number): void {
    const { bar, list } = this.lanes[name];
    const durations = laneDurations(lc[name], now, lc.endedAt);
    const total = durations.reduce((s, d) => s + d.ms, 0);
    const grow = (ms: number) => String(total > 0 ? Math.max(ms / total, 0.02) : 1);
    const shape = JSON.stringify(durations.map((d) => [d.state, d.current]));
    if (shape === this.shown[name] && durations.length === 0) {
      return;
    }
    if (shape === this.shown[name] && bar.children.length === durations.length && list.children.length === durations.length) {
      durations.forEach((d, i) => {
        const seg = bar.children[i] as HTMLElement;
        const value = grow(d.ms);
        if (seg.style.flexGrow !== value) {
          seg.style.flexGrow = value;
        }
        const dur = list.children[i]?.querySelector('.dur');
        if (dur) {
          setText(dur, formatDuration(d.ms, this.locale));
        }
      });
      return;
    }
    this.shown[name] = shape;
    // Otherwise rebuilt: a lane holds a handful of states, and nothing in it is focusable.
    clear(bar);
    clear(list);
    const doc = this.doc;
    if (durations.length === 0) {
      list.appendChild(h(doc, 'li', { class: 'lane-none' }, this.S.laneNotReported));
      return;
    }
    durations.forEach((d, i) => {
      const seg = h(doc, 'span', { class: `seg seg-c${i % 6}${d.current ? ' current' : ''}` });
      // CSSOM writes are allowed under the style-src CSP (unlike style attributes).
      seg.style.flexGrow = grow(d.ms);
      bar.appendChild(seg);
      list.appendChild(
        h(
          doc,
          'li',
          { class: `lane-state seg-c${i % 6}${d.current ? ' current' : ''}`, 'aria-current': d.current ? 'true' : undefined },
          h(doc, 'span', { class: 'swatch', 'aria-hidden': 'true' }),
          h(doc, 'bdi', {}, neutralizeText(d.state)),
          ' ',
          h(doc, 'span', { class: 'dur' }, formatDuration(d.ms, this.locale)),
        ),
      );
    });
  }
}
