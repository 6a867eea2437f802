/**
 * The capability context keys, on when the service's `/openapi.json` lists their operations. No
 * network at activation: keys come from the stored schema, read again at most once per session.
 * Closures rather than a class, as this is in the activation bundle and the minifier shortens them.
 */
import * as vscode from 'vscode';
import type { Connection } from './connection';
import type { TokenStore } from './tokenStore';
import {
  CAPABILITIES, contextKeyOf, reviveServedList, servedCapabilities, servedOperationsKey, servedPathsKey, shouldProbe,
  type Capability,
} from './common/capabilities';
import type { MementoLike } from '../base/common/serialStore';

/** What the lazy bundles read (`deps.capabilities`). */
export interface Capabilities {
  has(c: Capability): boolean;
  /** Fires after any key changed, and after the base URL changed. */
  readonly onDidChange: vscode.Event<void>;
}

export interface CapabilityGate extends Capabilities, vscode.Disposable {}

export interface CapabilityBase {
  globalState: MementoLike;
  conn: Pick<Connection, 'current' | 'onDidChange' | 'onDidReadSchema' | 'getClient'>;
  auth: Pick<TokenStore, 'onDidChange'>;
}

/** The keys, kept for the current base URL; `view.visible` decides whether to read the schema just for them. */
export function capabilityGate(b: CapabilityBase, view: { readonly visible: boolean; readonly onDidChangeVisibility: vscode.Event<unknown> }, log: Pick<vscode.LogOutputChannel, 'info'>): CapabilityGate {
  const { globalState, conn } = b;
  let on = new Set<Capability>();
  let shownFor = conn.current.baseUrl;
  /** Base URLs whose schema this session read only to learn the keys. */
  const probed = new Set<string>();
  const emitter = new vscode.EventEmitter<void>();
  const stored = (baseUrl: string) => ({
    paths: reviveServedList(globalState.get(servedPathsKey(baseUrl))),
    operations: reviveServedList(globalState.get(servedOperationsKey(baseUrl))),
  });
  const set = (next: Set<Capability>): void => {
    let changed = shownFor !== conn.current.baseUrl;
    shownFor = conn.current.baseUrl;
    for (const c of CAPABILITIES) {
      if (next.has(c) !== on.has(c)) {
        changed = true;
        void vscode.commands.executeCommand('setContext', contextKeyOf(c), next.has(c));
      }
    }
    on = next;
    if (changed) {
      emitter.fire();
    }
  };
  const probe = (): void => {
    const { baseUrl, signedIn } = conn.current;
    if (baseUrl === undefined || !shouldProbe({ visible: view.visible, signedIn, baseUrl, known: stored(baseUrl).operations !== undefined, probed: probed.has(baseUrl) })) {
      return;
    }
    probed.add(baseUrl);
    // The read reaches the keys through onDidReadSchema.
    void conn.getClient({ quiet: true }).then((c) => c?.getSchemaInfo()).catch((e: unknown) => log.info(`Capabilities: ${baseUrl}/openapi.json could not be read (${String(e)}).`));
  };
  const evaluate = (ask = true): void => {
    const baseUrl = conn.current.baseUrl;
    set(servedCapabilities(baseUrl === undefined ? undefined : stored(baseUrl)));
    if (ask) {
      probe();
    }
  };
  const keep = (key: string, list: string[] | undefined): void => {
    if (list !== undefined && reviveServedList(globalState.get(key))?.join() !== list.join()) {
      void globalState.update(key, list);
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
      keep(servedPathsKey(baseUrl), info.paths ?? []);
      keep(servedOperationsKey(baseUrl), info.operations);
      if (baseUrl === conn.current.baseUrl) {
        set(servedCapabilities({ paths: info.paths ?? [], operations: info.operations }));
      }
    }),
    view.onDidChangeVisibility(probe),
  ];
  // At activation only what is stored: no network.
  evaluate(false);
  return {
    has: (c) => on.has(c),
    onDidChange: emitter.event,
    dispose: () => {
      for (const s of subscriptions) {
        s.dispose();
      }
    },
  };
}
