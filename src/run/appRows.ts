/**
 * The rows another feature shows under each app of the Runs view (code reviews: src/reviews/rows.ts,
 * automations: src/automations/rows.ts) and what the view offers them (src/runs/runsTree.ts):
 * the features and the view each know this contract, not each other.
 */
import type * as vscode from 'vscode';
import type { AppRef } from './common/rows';

/** An element of a feature's rows: its `kind` starts with the feature's prefix ("codeReview", "automation"). */
export interface AppRow {
  readonly kind: string;
}

/** What the tree asks of the rows a feature shows under each app. */
export interface AppRows<N extends AppRow> {
  /** The app's row ("Code reviews", "Automations"), the same element for the same app. */
  root(app: AppRef): N;
  children(node: N): N[] | Promise<N[]>;
  item(node: N): vscode.TreeItem;
  /** `agentRuns.refreshCodeReviews`, `agentRuns.automations.refresh`. */
  refresh(arg?: unknown): Promise<void>;
  dispose(): void;
}

/** Whether a feature's rows are shown (a capability of the service), and when that changes. */
export interface RowsGate {
  readonly enabled: boolean;
  readonly onDidChange: vscode.Event<unknown>;
}

/** The Runs view as a feature's rows see it. */
export interface AppRowsHost {
  /** Shows the rows `make` builds (on first use, while `gate` is on) under each app; their elements' kinds start with `prefix`. */
  showRows<N extends AppRow>(prefix: string, gate: RowsGate, make: () => AppRows<N>): void;
  /** A feature's rows, made on first use while its gate is on (this loads its bundle). */
  rowsOf(prefix: string): AppRows<AppRow> | undefined;
  /** Re-renders the whole tree. */
  refreshAll(): void;
}
