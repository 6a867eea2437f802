/**
 * Mounting what a scroll brought near. A scroll's frame mounts only what is in view; the overscan
 * follows in idle slices of `OVERSCAN_STEP_PX` steps so no frame carries a whole overscan. A new
 * scroll restarts the fill at its own place, never finishing the old one's.
 */
import { JUMP_OVERSCAN_PX, OVERSCAN_PX, type History } from './history';

/** How much more is mounted above and below the viewport per step of a fill. */
export const OVERSCAN_STEP_PX = 100;
/** An idle slice of a fill takes further steps until it has run this long (ms). */
export const FILL_SLICE_MS = 6;
/** Renders in a jump's frame when the rows measured shorter than estimated and left a part of the view empty. */
const JUMP_PASSES = 3;

export interface ScrollFollowDeps {
  whenIdle(fn: () => void): void;
  /** False once the history is no longer the page's (a new `init`): the idle steps then leave it alone. */
  current(): boolean;
  /** Monotonic milliseconds (performance.now): how long a slice has run. */
  clock(): number;
}

/** Follows the scroll of one page's history. */
export class ScrollFollower {
  /** The overscan the next step of the fill mounts; beyond `OVERSCAN_PX`: nothing to fill. */
  private next = OVERSCAN_PX + OVERSCAN_STEP_PX;
  private scheduled = false;

  constructor(
    private readonly history: History,
    private readonly deps: ScrollFollowDeps,
  ) {}

  /** Called on scroll (once a frame): mounts what is in view now, and the rest when idle. */
  onScroll(): void {
    const history = this.history;
    const y = history.scrollY();
    if (!history.covers(y, 0)) {
      // A jump: the frame gets only what is in view.
      for (let pass = 0; pass < JUMP_PASSES && !history.covers(history.scrollY(), 0); pass++) {
        history.render({ keepAnchor: true, y: pass === 0 ? y : history.scrollY(), overscan: JUMP_OVERSCAN_PX });
      }
      this.fill();
    } else if (!history.covers(y)) {
      this.fill();
    }
  }

  /** True while rows around the viewport are still to be mounted in idle slices. */
  get filling(): boolean {
    return this.next <= OVERSCAN_PX;
  }

  /** (Re)starts the fill around the viewport from its first step. */
  private fill(): void {
    this.next = JUMP_OVERSCAN_PX + OVERSCAN_STEP_PX;
    this.schedule();
  }

  private schedule(): void {
    if (!this.scheduled) {
      this.scheduled = true;
      this.deps.whenIdle(() => this.slice());
    }
  }

  /** One idle slice: steps until `FILL_SLICE_MS` has passed or the overscan is full. */
  private slice(): void {
    this.scheduled = false;
    if (!this.deps.current()) {
      return;
    }
    const history = this.history;
    const started = this.deps.clock();
    while (this.next <= OVERSCAN_PX) {
      const y = history.scrollY();
      if (!history.covers(y, 0)) {
        // Scrolled away since: the scroll's frame mounts what is in view there (and fills again).
        return;
      }
      const overscan = this.next;
      this.next += OVERSCAN_STEP_PX;
      if (!history.covers(y, overscan)) {
        history.render({ keepAnchor: true, overscan });
        if (this.deps.clock() - started >= FILL_SLICE_MS) {
          break;
        }
      }
    }
    if (this.filling) {
      this.schedule();
    }
  }
}
