/**
 * Mounting what a scroll brought near the viewport, a little per frame or idle slice. A jump
 * (scrollbar, Page Down far, End) shows the view top first, `VIEW_PART_PX` at a time, as many
 * parts per frame as fit in `FRAME_SLICE_MS` (on a slowed machine the rest of the view comes in
 * the next frames instead of holding this one). The rows around the view, up to the history's
 * overscan, follow when the page is idle: `OVERSCAN_STEP_PX` more above and below per step (a
 * row or two each side), as many steps per idle slice as fit in `FILL_SLICE_MS`. A scroll while
 * either is under way starts it again at the new place, keeping what is mounted there; an idle
 * slice that finds the view scrolled off the mounted rows leaves that to the scroll's frame.
 */
import { OVERSCAN_PX, type History } from './history';

/** How much more of the view a jump mounts per part, below what is mounted at its top. */
export const VIEW_PART_PX = 200;
/** A jump's frame mounts further parts of the view until it has run this long (ms). */
export const FRAME_SLICE_MS = 10;
/** How much more is mounted above and below the viewport per step of a fill. */
export const OVERSCAN_STEP_PX = 100;
/** An idle slice of a fill takes further steps until it has run this long (ms). */
export const FILL_SLICE_MS = 6;
/** Parts after which a view that will not fill (rows that cannot be drawn) is left as it is. */
const MAX_VIEW_PARTS = 40;

export interface ScrollFollowDeps {
  whenIdle(fn: () => void): void;
  /** Runs `fn` before the next frame (requestAnimationFrame); without it a jump shows the whole view at once. */
  nextFrame?(fn: () => void): void;
  /** False once the history is no longer the page's (a new `init`): the idle steps then leave it alone. */
  current(): boolean;
  /** Monotonic milliseconds (performance.now): how long a frame's or a slice's work has run. */
  clock(): number;
}

/** Follows the scroll of one page's history. */
export class ScrollFollower {
  /** The overscan the next step of the fill mounts; beyond `OVERSCAN_PX`: nothing to fill. */
  private next = OVERSCAN_PX + OVERSCAN_STEP_PX;
  private scheduled = false;
  /** Counts the jumps: a view shown in parts goes on only while no newer jump started. */
  private jumps = 0;

  constructor(
    private readonly history: History,
    private readonly deps: ScrollFollowDeps,
  ) {}

  /** Called on scroll (once a frame): mounts what is in view now, and the rest when idle. */
  onScroll(): void {
    const history = this.history;
    const y = history.scrollY();
    if (!history.covers(y, 0)) {
      this.next = OVERSCAN_PX + OVERSCAN_STEP_PX; // no fill until the view is there
      this.showView(++this.jumps, 0);
    } else if (!history.covers(y)) {
      this.fill();
    }
  }

  /** True while rows around the viewport are still to be mounted in idle slices. */
  get filling(): boolean {
    return this.next <= OVERSCAN_PX;
  }

  /** Mounts the view in parts, top first, until it is covered; then the fill. */
  private showView(jump: number, parts: number): void {
    const history = this.history;
    const started = this.deps.clock();
    for (let part = parts; ; part++) {
      const y = history.scrollY();
      if (history.covers(y, 0) || part >= MAX_VIEW_PARTS) {
        this.fill();
        return;
      }
      history.render({ keepAnchor: true, y, overscan: 0, reach: this.mountedBelow(y) + VIEW_PART_PX });
      const deps = this.deps;
      if (deps.nextFrame && deps.clock() - started >= FRAME_SLICE_MS && !history.covers(history.scrollY(), 0)) {
        deps.nextFrame(() => {
          if (jump === this.jumps && this.deps.current()) {
            this.showView(jump, part + 1);
          }
        });
        return;
      }
    }
  }

  /** How far below `y` the mounted rows reach (0 when the row at `y` is not mounted). */
  private mountedBelow(y: number): number {
    const rows = this.history.mountedRows();
    const first = rows[0];
    const last = rows[rows.length - 1];
    const top = first ? this.history.topOfRow(first) : undefined;
    const lastTop = last ? this.history.topOfRow(last) : undefined;
    if (top === undefined || lastTop === undefined || top > y) {
      return 0;
    }
    return Math.max(0, lastTop + (last.height ?? last.est) - y);
  }

  /** (Re)starts the fill around the viewport from its first step. */
  private fill(): void {
    this.next = OVERSCAN_STEP_PX;
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
        // Scrolled away since, or a view still shown in parts: that is the frames' work.
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
