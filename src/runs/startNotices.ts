/**
 * The Runs view's rows for starts that may have reached the service (see unconfirmedStarts.ts):
 * one row each, above the apps, that runs Track Run by ID when clicked and can be dismissed. The
 * row's words load with the run commands (./commands/startNoticeItem.ts, dist/runCommands.js).
 */
import type { UnconfirmedStart } from '../run/unconfirmedStarts';

export class StartNoticeNode {
  constructor(readonly start: UnconfirmedStart) {}
}
