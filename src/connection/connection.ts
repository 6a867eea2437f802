/**
 * The base URL, whether a token is stored for it, the client built from both, and the welcome
 * views' context keys. The client is built on first use (dist/api.js is not for activation) and
 * rebuilt when the base URL, the token or the proxy settings change.
 */
import * as vscode from 'vscode';
import type * as Prompts from './commands/missing';
import type { AgentRunsApi, ProxySettings, RequestLogEntry } from '../api/contract';
import type { ServiceSchemaInfo } from '../api/types';
import { isInsecureRemote, normalizeBaseUrl } from '../api/baseUrl';
import type * as ApiIndex from '../api/index';
import { Disposable } from '../base/common/disposable';
import type { TokenStore } from './tokenStore';

/** The HTTP stack and the response schemas (dist/api.js, src/api/index.ts), loaded on the first request. */
export type ApiModule = typeof ApiIndex;

export const CONTEXT_CONFIGURED = 'agentRuns.configured';
export const CONTEXT_BASE_URL_INVALID = 'agentRuns.baseUrlInvalid';
export const CONTEXT_SIGNED_IN = 'agentRuns.signedIn';
/** Set once the first SecretStorage read finished, so welcome views do not flash. */
export const CONTEXT_READY = 'agentRuns.ready';

const INSECURE_ACCEPTED_KEY = 'agentRuns.insecureBaseUrlsAccepted';

/** Paths the service answers without looking at the token: their success proves nothing about it. */
const PATHS_WITHOUT_AUTH: ReadonlySet<string> = new Set(['/openapi.json']);

/** The service answered a request that needs the token with success. */
export interface TokenAccepted {
  baseUrl: string;
  /** When the request was sent, on the `performance.now()` clock. */
  startedAt: number;
}

/** Where the connection stands; drives the context keys and welcome views. */
export interface ConnectionState {
  /** Normalised base URL, or undefined when unset or invalid. */
  baseUrl: string | undefined;
  /** Why the configured base URL is unusable (user-facing), when it is set but invalid. */
  baseUrlProblem?: string;
  /** A token is stored for `baseUrl`. */
  signedIn: boolean;
}

/** What the connection's own commands use. */
export interface ConnectionServices {
  readonly conn: Connection;
  readonly auth: TokenStore;
  readonly log: vscode.LogOutputChannel;
}

export interface ConnectionOptions {
  context: vscode.ExtensionContext;
  /** The extension's global state, written through base/common/serialStore.ts. */
  globalState: vscode.Memento;
  auth: TokenStore;
  log: vscode.LogOutputChannel;
  loadApi: () => ApiModule;
  /** The prompts of a request that cannot be made (./commands/missing.ts), loaded when one is needed. */
  prompts: () => typeof Prompts;
}

/** The editor's network settings the client honours (see src/api/transport.ts). */
const NETWORK_SETTINGS = ['http.proxy', 'http.proxyStrictSSL', 'http.noProxy', 'http.proxyAuthorization', 'http.systemCertificates'];

/** The editor's network settings, as the editor would apply them to its own requests. */
export function readNetworkSettings(): ProxySettings {
  const http = vscode.workspace.getConfiguration('http');
  const noProxy = http.get<unknown>('noProxy', []);
  const authorization = http.get<unknown>('proxyAuthorization', null);
  return {
    url: http.get<string>('proxy', ''),
    strictSSL: http.get<boolean>('proxyStrictSSL', true),
    noProxy: Array.isArray(noProxy) ? noProxy.filter((v): v is string => typeof v === 'string') : [],
    authorization: typeof authorization === 'string' && authorization.trim() !== '' ? authorization : undefined,
    systemCertificates: http.get<boolean>('systemCertificates', true),
  };
}

export function readBaseUrlSetting(): { baseUrl?: string; problem?: string } {
  const raw = vscode.workspace.getConfiguration('agentRuns').get<string>('baseUrl', '');
  if (raw.trim() === '') {
    return {};
  }
  try {
    return { baseUrl: normalizeBaseUrl(raw) };
  } catch (e) {
    return { problem: e instanceof Error ? e.message : String(e) };
  }
}

export class Connection extends Disposable {
  private state: ConnectionState = { baseUrl: undefined, signedIn: false };
  private readonly changeEmitter = this._register(new vscode.EventEmitter<ConnectionState>());
  readonly onDidChange: vscode.Event<ConnectionState> = this.changeEmitter.event;
  private readonly acceptedEmitter = this._register(new vscode.EventEmitter<TokenAccepted>());
  /** Each success of a request that needs the token (the 401 gate lifts on one sent after the 401). */
  readonly onDidAcceptToken: vscode.Event<TokenAccepted> = this.acceptedEmitter.event;
  private readonly schemaEmitter = this._register(new vscode.EventEmitter<{ baseUrl: string; info: ServiceSchemaInfo }>());
  /** Each read of a service's `/openapi.json`, by whatever asked for it. */
  readonly onDidReadSchema = this.schemaEmitter.event;

  private client: AgentRunsApi | undefined;
  private clientPromise: Promise<AgentRunsApi | undefined> | undefined;
  /** Bumped on every change that invalidates the client; a build that started before is discarded. */
  private generation = 0;
  private readonly insecureDeclined = new Set<string>();
  private insecurePrompt: Promise<boolean> | undefined;
  private readyPromise: Promise<void>;

  constructor(private readonly options: ConnectionOptions) {
    super();
    const { baseUrl, problem } = readBaseUrlSetting();
    this.state = { baseUrl, baseUrlProblem: problem, signedIn: false };
    this.setContextKeys();
    this._register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentRuns.baseUrl')) {
        this.onBaseUrlSetting();
      } else if (NETWORK_SETTINGS.some((key) => e.affectsConfiguration(key))) {
        this.options.log.info('Network settings changed; the next request uses them.');
        this.invalidateClient();
      }
    }));
    this._register(options.auth.onDidChange((e) => {
      if (e.baseUrl === this.state.baseUrl) {
        this.invalidateClient();
        void this.refreshSignedIn();
      }
    }));
    this.readyPromise = this.refreshSignedIn().then(() => {
      void vscode.commands.executeCommand('setContext', CONTEXT_READY, true);
    });
  }

  /** Resolves once the first token lookup is done. */
  get ready(): Promise<void> {
    return this.readyPromise;
  }

  get current(): ConnectionState {
    return this.state;
  }

  /** The API module, loaded on first call (zod, undici: not on the activation path). */
  api(): ApiModule {
    return this.options.loadApi();
  }

  async getClient(options: { quiet?: boolean } = {}): Promise<AgentRunsApi | undefined> {
    if (this.client) {
      return this.client;
    }
    if (!this.clientPromise) {
      const generation = this.generation;
      const promise: Promise<AgentRunsApi | undefined> = this.buildClient(options.quiet === true).then(
        (client) => {
          if (this.clientPromise === promise) {
            this.clientPromise = undefined;
          }
          if (generation !== this.generation) {
            // Settings or token changed while building: this client is already stale.
            void client?.dispose();
            return this.getClient(options);
          }
          this.client = client;
          return client;
        },
        (err: unknown) => {
          if (this.clientPromise === promise) {
            this.clientPromise = undefined;
          }
          throw err;
        },
      );
      this.clientPromise = promise;
    }
    const client = await this.clientPromise;
    if (!client && !options.quiet) {
      await this.options.prompts().explainMissing(this.state);
    }
    return client;
  }

  /**
   * Asks (modal, once per base URL, remembered) before a token goes over plain http to a
   * remote host. Resolves true when sending is fine.
   */
  async confirmInsecure(baseUrl: string, quiet: boolean): Promise<boolean> {
    if (!isInsecureRemote(baseUrl)) {
      return true;
    }
    const accepted = this.options.globalState.get<string[]>(INSECURE_ACCEPTED_KEY, []);
    if (accepted.includes(baseUrl)) {
      return true;
    }
    if (quiet && this.insecureDeclined.has(baseUrl)) {
      return false;
    }
    this.insecurePrompt ??= (async () => {
      if (await this.options.prompts().askInsecure(baseUrl)) {
        await this.options.globalState.update(INSECURE_ACCEPTED_KEY, [...accepted.filter((u) => u !== baseUrl), baseUrl]);
        this.insecureDeclined.delete(baseUrl);
        this.options.log.info(`Sending the token over plain http to ${baseUrl} was allowed by the user.`);
        return true;
      }
      this.insecureDeclined.add(baseUrl);
      return false;
    })().finally(() => {
      this.insecurePrompt = undefined;
    });
    return this.insecurePrompt;
  }

  /** Re-reads whether a token is stored; fires a change when it differs. */
  async refreshSignedIn(): Promise<void> {
    const baseUrl = this.state.baseUrl;
    let signedIn = false;
    if (baseUrl) {
      try {
        signedIn = await this.options.auth.has(baseUrl);
      } catch (e) {
        this.options.log.error(`Could not read the token from secret storage: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (baseUrl !== this.state.baseUrl) {
      return; // The base URL changed meanwhile; that change re-reads.
    }
    if (signedIn !== this.state.signedIn) {
      this.state = { ...this.state, signedIn };
      this.setContextKeys();
      this.changeEmitter.fire(this.state);
    }
  }

  invalidateClient(): void {
    this.generation++;
    const old = this.client;
    this.client = undefined;
    this.clientPromise = undefined;
    if (old) {
      old.dispose().catch((e: unknown) => this.options.log.warn(`Closing the old connection failed: ${e instanceof Error ? e.message : String(e)}`));
    }
  }

  override dispose(): void {
    this.invalidateClient();
    super.dispose();
  }

  private onBaseUrlSetting(): void {
    const { baseUrl, problem } = readBaseUrlSetting();
    if (baseUrl === this.state.baseUrl && problem === this.state.baseUrlProblem) {
      return;
    }
    this.options.log.info(baseUrl ? `Base URL is now ${baseUrl}.` : problem ? `Base URL setting is unusable: ${problem}` : 'Base URL is not set.');
    this.invalidateClient();
    this.state = { baseUrl, baseUrlProblem: problem, signedIn: false };
    this.setContextKeys();
    this.changeEmitter.fire(this.state);
    void this.refreshSignedIn();
  }

  private setContextKeys(): void {
    void vscode.commands.executeCommand('setContext', CONTEXT_CONFIGURED, this.state.baseUrl !== undefined);
    void vscode.commands.executeCommand('setContext', CONTEXT_BASE_URL_INVALID, this.state.baseUrlProblem !== undefined);
    void vscode.commands.executeCommand('setContext', CONTEXT_SIGNED_IN, this.state.signedIn);
  }

  private async buildClient(quiet: boolean): Promise<AgentRunsApi | undefined> {
    const baseUrl = this.state.baseUrl;
    if (!baseUrl) {
      return undefined;
    }
    const token = await this.options.auth.get(baseUrl);
    if (!token) {
      return undefined;
    }
    if (!(await this.confirmInsecure(baseUrl, quiet))) {
      return undefined;
    }
    const api = this.api();
    // Every token held (all base URLs, kept up to date): the client keeps them out of its messages.
    const otherSecrets = await api.watchStoredTokens(this.options, baseUrl);
    const proxy = readNetworkSettings();
    const proxyUrl = proxy.url;
    const log = this.options.log;
    const declared = (this.options.context.extension.packageJSON as { version?: unknown }).version;
    const version = typeof declared === 'string' ? declared : '0';
    log.debug(`Creating the API client for ${baseUrl}${proxyUrl ? ' through the configured http.proxy' : ''}.`);
    try {
      return api.createClient({
        baseUrl,
        token,
        otherSecrets,
        proxy,
        userAgent: `agent-runs-vscode/${version} (${vscode.env.appName} ${vscode.version})`,
        onSchemaInfo: (info) => this.schemaEmitter.fire({ baseUrl, info }),
        log: (entry: RequestLogEntry) => {
          const outcome = entry.status !== undefined ? String(entry.status) : (entry.errorKind ?? 'failed');
          log.debug(`${entry.method} ${entry.path} → ${outcome} (${Math.round(entry.durationMs)} ms)`);
          if (entry.status !== undefined && entry.status >= 200 && entry.status < 300 && entry.errorKind === undefined && !PATHS_WITHOUT_AUTH.has(entry.path)) {
            // durationMs is rounded: err towards "sent earlier".
            this.acceptedEmitter.fire({ baseUrl, startedAt: performance.now() - entry.durationMs - 1 });
          }
        },
      });
    } catch (e) {
      // E.g. an unusable http.proxy value: say so once, where the user can act on it.
      const text = api.isApiError(e) ? api.describeApiError(e) : e instanceof Error ? e.message : String(e);
      log.error(`Could not set up the connection to ${baseUrl}: ${text}`);
      if (!quiet) {
        void vscode.window.showErrorMessage(vscode.l10n.t('Agent Runs could not set up the connection: {0}', text));
      }
      return undefined;
    }
  }
}
