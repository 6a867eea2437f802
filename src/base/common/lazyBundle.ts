// One lazily loaded bundle of dist/ (esbuild.js `lazyEntries`): loaded on the first call, then kept.
/**
 * `load` is a literal `require('./x.js')`: esbuild keeps only a literal require external, and
 * scripts/check-bundles.js checks it names a built bundle. A load that throws is tried again.
 */
export function lazyBundle<T>(load: () => T): () => T {
  let loaded: { readonly bundle: T } | undefined;
  return () => (loaded ??= { bundle: load() }).bundle;
}
