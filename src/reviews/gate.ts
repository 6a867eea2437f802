/**
 * The `agentRuns.codeReviews` context key: on exactly when the current service's
 * `/openapi.json` lists `/code-reviews` (core/reviews/gate.ts decides). In the activation
 * bundle, so it is small (closures, not a class: the minifier shortens their names): at
 * activation the key comes from the paths stored for the base URL (no network); every read of
 * the schema, whoever asked, updates them; a base URL or token change evaluates again (off until
 * known); and when nothing is known while the Runs view is visible and a token is set, the
 * schema is read once per session.
 */
import * as vscode from 'vscode';
import type { Connection } from '../connection/connection';
import type { TokenStore } from '../connection/tokenStore';
import type { UnauthorizedGate } from '../connection/unauthorizedGate';
import { codeReviewsServed, reviveServedPaths, servedPathsKey, shouldProbe } from '../core/reviews/gate';
import type { MementoLike } from '../core/serialStore';
import type { Ledgers } from '../runs/ledgers';
import type { RunsView } from '../runs/runsView';
import { loadReviews } from './load';

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

/** The key, kept for the current base URL; `view.visible` decides whether to read the schema just for it. */
export function reviewsGate(b: Pick<CodeReviewsBase, 'globalState' | 'conn' | 'auth'>, view: { readonly visible: boolean; readonly onDidChangeVisibility: vscode.Event<unknown> }, log: Pick<vscode.LogOutputChannel, 'info'>): ReviewsGate {
  const { globalState, conn } = b;
  let on = false;
  /** Base URLs whose schema this session read only to learn the key. */
  const probed = new Set<string>();
  const emitter = new vscode.EventEmitter<boolean>();
  const known = (baseUrl: string): string[] | undefined => reviveServedPaths(globalState.get(servedPathsKey(baseUrl)));
  const set = (next: boolean): void => {
    if (next !== on) {
      on = next;
      void vscode.commands.executeCommand('setContext', CONTEXT_CODE_REVIEWS, on);
      emitter.fire(on);
    }
  };
  const probe = (): void => {
    const { baseUrl, signedIn } = conn.current;
    if (baseUrl === undefined || !shouldProbe({ visible: view.visible, signedIn, baseUrl, known: known(baseUrl) !== undefined, probed: probed.has(baseUrl) })) {
      return;
    }
    probed.add(baseUrl);
    // The read reaches the key through onDidReadSchema.
    void conn.getClient({ quiet: true }).then((c) => c?.getSchemaInfo()).catch((e: unknown) => log.info(`Code reviews: ${baseUrl}/openapi.json could not be read (${String(e)}).`));
  };
  const evaluate = (ask = true): void => {
    const baseUrl = conn.current.baseUrl;
    set(baseUrl !== undefined && codeReviewsServed(known(baseUrl)));
    if (ask) {
      probe();
    }
  };
  const subscriptions = [
    emitter,
    conn.onDidChange(() => evaluate()),
    b.auth.onDidChange((e) => {
      if (e.baseUrl === conn.current.baseUrl) {
        probed.delete(e.baseUrl);
        evaluate();
      }
    }),
    conn.onDidReadSchema(({ baseUrl, info }) => {
      const paths = info.paths ?? [];
      if (known(baseUrl)?.join() !== paths.join()) {
        void globalState.update(servedPathsKey(baseUrl), paths);
      }
      if (baseUrl === conn.current.baseUrl) {
        set(codeReviewsServed(paths));
      }
    }),
    view.onDidChangeVisibility(probe),
  ];
  // At activation only what is stored: no network.
  evaluate(false);
  return {
    get enabled() {
      return on;
    },
    onDidChange: emitter.event,
    dispose: () => {
      for (const s of subscriptions) {
        s.dispose();
      }
    },
  };
}

/** The gate, the Runs view's review rows (dist/reviews.js, loaded when first shown) and their two commands. */
export function registerCodeReviews(context: vscode.ExtensionContext, b: CodeReviewsBase, view: RunsView, log: vscode.LogOutputChannel): ReviewsGate {
  const gate = reviewsGate(b, view.treeView, log);
  const provider = view.provider;
  provider.showCodeReviews(gate, () => new (loadReviews().ReviewRows)(b, () => provider.refreshAll(), log));
  context.subscriptions.push(
    gate,
    vscode.commands.registerCommand('agentRuns.refreshCodeReviews', (arg?: unknown) => provider.reviewRows()?.refresh(arg)),
    vscode.commands.registerCommand('agentRuns.copyReviewId', (arg?: unknown) => loadReviews().copyReviewId(arg)),
  );
  return gate;
}
