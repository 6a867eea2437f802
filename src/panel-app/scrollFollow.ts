/**
 * Mounting what a scroll brought near the viewport. A jump (scrollbar, Page Down far, End)
 * mounts only what is in view in that frame; the rows around it follow when the page is idle,
 * in steps of a few each, so no frame carries a whole overscan's rendering.
 */
import { JUMP_OVERSCAN_PX, type History } from './history';

/** The overscan a jump grows back to, one idle step each (the last is the history's own). */
const OVERSCAN_STEPS_PX = [300, 550, 800];

export interface ScrollFollowDeps {
  whenIdle(fn: () => void): void;
  /** False once the history is no longer the page's (a new `init`): the idle steps then leave it alone. */
  current(): boolean;
}

/** Called on scroll: mounts the rows near the viewport when the mounted ones no longer cover it. */
export function followScroll(history: History, deps: ScrollFollowDeps): void {
  const y = history.scrollY();
  if (!history.covers(y, 0)) {
    // A jump: the frame gets only what is in view; the rows around it follow when idle.
    history.render({ keepAnchor: true, y, overscan: JUMP_OVERSCAN_PX });
    growOverscan(history, deps, 0);
  } else if (!history.covers(y)) {
    history.render({ keepAnchor: true, y });
  }
}

/** After a jump, the rows around the viewport are mounted in idle steps of a few each. */
function growOverscan(history: History, deps: ScrollFollowDeps, step: number): void {
  const overscan = OVERSCAN_STEPS_PX[step];
  if (overscan === undefined) {
    return;
  }
  deps.whenIdle(() => {
    if (deps.current() && !history.covers(history.scrollY(), overscan / 2)) {
      history.render({ keepAnchor: true, overscan });
    }
    growOverscan(history, deps, step + 1);
  });
}
