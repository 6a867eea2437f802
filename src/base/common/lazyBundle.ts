// One lazily loaded bundle of dist/ (esbuild.js `lazyEntries`): loaded on the first call, then kept.
/**
 * `load` is a literal `require('./x.js')` at the call site: esbuild keeps only a literal
 * require external (esbuild.js), and scripts/check-bundles.js checks each one names a built bundle.
 * A load that throws is tried again on the next call, as a plain `require` would be.
 */
export function lazyBundle<T>(load: () => T): () => T {
  let loaded: { readonly bundle: T } | undefined;
  return () => (loaded ??= { bundle: load() }).bundle;
}
