/**
 * The `agentRuns.codeReviews` context key as the review rows see it: one of the capabilities
 * (src/connection/capabilities.ts keeps them all), as a flag with its own change event.
 */
import * as vscode from 'vscode';
import type { Connection } from '../connection/connection';
import type { TokenStore } from '../connection/tokenStore';
import type { UnauthorizedGate } from '../connection/unauthorizedGate';
import type { MementoLike } from '../base/common/serialStore';
import type { Ledgers } from '../run/ledgers';
import type { Capabilities } from '../connection/capabilities';

export const CONTEXT_CODE_REVIEWS = 'agentRuns.codeReviews';

export interface ReviewsGate extends vscode.Disposable {
  readonly enabled: boolean;
  readonly onDidChange: vscode.Event<boolean>;
}

/** What the gate and the review rows stand on (extension.ts's base). */
export interface CodeReviewsBase {
  globalState: MementoLike;
  conn: Pick<Connection, 'current' | 'onDidChange' | 'onDidReadSchema' | 'getClient' | 'api'>;
  auth: Pick<TokenStore, 'onDidChange'>;
  ledgers: Pick<Ledgers, 'current' | 'onDidChangeRuns'>;
  gate: Pick<UnauthorizedGate, 'report'>;
}

/** `codeReviews` of `caps` as a flag that says when it changes. */
export function codeReviewsFlag(caps: Capabilities): ReviewsGate {
  let on = caps.has('codeReviews');
  const emitter = new vscode.EventEmitter<boolean>();
  const sub = caps.onDidChange(() => {
    if (caps.has('codeReviews') !== on) {
      on = !on;
      emitter.fire(on);
    }
  });
  return {
    get enabled() {
      return on;
    },
    onDidChange: emitter.event,
    dispose: () => {
      sub.dispose();
      emitter.dispose();
    },
  };
}
