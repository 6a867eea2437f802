// Every stored token, so the client redacts them all: a service or proxy can echo another base URL's
// token. SecretStorage cannot list its keys, so the global state lists the base URLs with a token
// (never a token); older ones are found through per-service state's `<name>:<base URL>` keys.

export const TOKEN_BASE_URLS_KEY = 'agentRuns.tokenBaseUrls.v1';

/** The global state as this needs it (`vscode.Memento` fits). */
export interface StateLike {
  get<T>(key: string): T | undefined;
  keys(): readonly string[];
  update(key: string, value: unknown): PromiseLike<void>;
}

/** Reads the token stored for a base URL (the extension's TokenStore fits). */
export interface TokenReader {
  get(baseUrl: string): PromiseLike<string | undefined>;
}

function listed(state: StateLike): string[] {
  const raw = state.get<unknown>(TOKEN_BASE_URLS_KEY);
  return Array.isArray(raw) ? raw.filter((u): u is string => typeof u === 'string') : [];
}

/**
 * Brings the list up to date after the token of `baseUrl` was set or cleared, in this window or
 * another: a base URL is listed while a token is stored for it.
 */
export async function noteTokenChange(state: StateLike, tokens: TokenReader, baseUrl: string): Promise<void> {
  const stored = (await tokens.get(baseUrl)) !== undefined;
  const urls = listed(state);
  if (stored !== urls.includes(baseUrl)) {
    await state.update(TOKEN_BASE_URLS_KEY, stored ? [...urls, baseUrl] : urls.filter((u) => u !== baseUrl));
  }
}

/** Every token held: those of `current`, of the listed base URLs and of those the global state names. */
export async function storedTokens(state: StateLike, tokens: TokenReader, current: string | undefined): Promise<string[]> {
  const urls = new Set(listed(state));
  for (const key of state.keys()) {
    const named = /:(https?:\/\/.+)$/.exec(key)?.[1];
    if (named !== undefined) urls.add(named);
  }
  if (current !== undefined) urls.add(current);
  // A base URL whose token cannot be read (a keyring error) has none to redact; the others count.
  const values = await Promise.all([...urls].map((u) => Promise.resolve(tokens.get(u)).then((v) => v, () => undefined)));
  return [...new Set(values.filter((v): v is string => v !== undefined && v !== ''))];
}

/** A token store that says when a base URL's token was set or cleared (the extension's TokenStore fits). */
export interface WatchedTokens extends TokenReader {
  onDidChange(listener: (e: { baseUrl: string }) => unknown): unknown;
}

interface Held {
  list: readonly string[];
  current: string;
  refresh(): Promise<void>;
}

const kept = new WeakMap<StateLike, Held>();

/**
 * What the client's `otherSecrets` reads: every token held, read again now (the current base
 * URL's token listed) and whenever a token is set or cleared, here or in another window, for the
 * life of the store. Kept here, loaded with the client, so activation carries none of it.
 */
export async function watchStoredTokens(
  options: { globalState: StateLike; auth: WatchedTokens; log: { warn(message: string): void } },
  current: string,
): Promise<() => readonly string[]> {
  const { globalState: state, auth: tokens, log } = options;
  let held = kept.get(state);
  if (held === undefined) {
    const h: Held = {
      list: [],
      current,
      refresh: async () => {
        h.list = await storedTokens(state, tokens, h.current);
      },
    };
    tokens.onDidChange((e) => {
      noteTokenChange(state, tokens, e.baseUrl).then(() => h.refresh()).catch((err: unknown) =>
        log.warn(`Could not list the stored tokens: ${err instanceof Error ? err.message : String(err)}`));
    });
    kept.set(state, (held = h));
  }
  held.current = current;
  await noteTokenChange(state, tokens, current);
  await held.refresh();
  const h = held;
  return () => h.list;
}
