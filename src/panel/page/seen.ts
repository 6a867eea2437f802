/**
 * What the person has not seen yet: the "N new messages" pill for messages that arrive while
 * they read further up, and telling the extension the run was seen once its end is in view.
 */
import { format, type WebviewToExtensionMessage } from '../common/protocol';
import { formatNumber } from '../common/render';
import { setHidden, setText } from './dom';
import type { AppEnv, Page } from './page';

const MARK_SEEN_MIN_INTERVAL_MS = 2_000;

export class Unseen {
  private newCount = 0;
  private unseen = false;
  private lastMarkSeen = 0;

  constructor(private readonly env: Pick<AppEnv, 'now' | 'isVisible' | 'viewport'> & { post(m: WebviewToExtensionMessage): void }) {}

  /** A new page: nothing counted, the run not yet reported as seen. */
  reset(): void {
    this.newCount = 0;
    this.unseen = true;
  }

  /** Messages arrived at the end; counted in the pill when the person is reading elsewhere. */
  arrived(p: Page, count: number, atBottom: boolean): void {
    this.unseen = true;
    if (atBottom) {
      return;
    }
    this.newCount += count;
    setText(p.composer.pill, format(p.S.newMessages, formatNumber(this.newCount, p.locale)));
    p.composer.pill.title = p.S.latestMessage;
    setHidden(p.composer.pill, false);
  }

  hidePill(p: Page | undefined): void {
    this.newCount = 0;
    if (p) {
      setHidden(p.composer.pill, true);
    }
  }

  /** Tells the extension the run was seen, when the end of the log is in view (`atBottom`, when already known). */
  maybeMarkSeen(atBottom?: boolean): void {
    if (!this.unseen || !this.env.isVisible() || !(atBottom ?? this.env.viewport.isAtBottom())) {
      return;
    }
    const now = this.env.now();
    if (now - this.lastMarkSeen < MARK_SEEN_MIN_INTERVAL_MS) {
      return;
    }
    this.lastMarkSeen = now;
    this.unseen = false;
    this.env.post({ type: 'markSeen' });
  }
}
