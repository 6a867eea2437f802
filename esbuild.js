// @ts-check
// Two kinds of bundle: the extension host (cjs/node) and the webview app (iife/browser).
// The extension host side is split: dist/extension.js is what activation loads; heavy
// modules (HTTP stack, full schemas, the launch flow, the run panel, test-ID scanning) live in
// their own files and are required on first use.
const esbuild = require('esbuild');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/**
 * Entry points loaded lazily by dist/extension.js (each through `lazyBundle`, src/base/common/lazyBundle.ts, in the feature's contribution.ts);
 * each is external to the others. Bundles share no module instances: a module bundled into two
 * of them exists twice, so what they share must be stateless; live objects are passed in.
 * `scripts/check-bundles.js` checks this against dist/meta.json.
 */
const lazyEntries = {
  // The HTTP stack and the response schemas: the first request (src/connection/contribution.ts).
  api: 'src/api/index.ts',
  // The sender's POSTs: the first start, follow-up or test group (src/extension.ts).
  send: 'src/run/sendPosts.ts',
  // The history windows: the first read of a run (src/run/runSync.ts).
  windows: 'src/run/common/polling/historyWindow.ts',
  // The start-run flow: the first start-run command (src/launch/contribution.ts).
  launch: 'src/launch/bundle.ts',
  // The run panel: a panel opened or restored, or a read merged (src/panel/contribution.ts).
  panel: 'src/panel/host/bundle.ts',
  // The saved transcripts: the first read that brings messages, or a panel (src/run/transcripts.ts).
  transcripts: 'src/run/common/transcript/transcriptFiles.ts',
  // The run model: polling, the sender, alerts, the Runs view's rows and status bar: its first need (src/extension.ts).
  runs: 'src/runs/bundle.ts',
  // The run commands' bodies and the run links, and the connection's prompts (Set Base URL, Set API Token,
  // Clear Token): their first use (src/runs/contribution.ts, src/connection/contribution.ts).
  runCommands: 'src/runs/commands/bundle.ts',
  // Test-ID scanning, creating test groups, runs about tests (src/testGroups/contribution.ts).
  testGroups: 'src/testGroups/bundle.ts',
  // Language model tools and the @agent-runs chat participant: the first tool call or chat request (src/assistant/contribution.ts).
  assistant: 'src/assistant/bundle.ts',
  // "Ask Agent to Fix" from the Test Explorer: its first use (src/testing/contribution.ts).
  testing: 'src/testing/bundle.ts',
  // Code reviews: the start flow, opening a review, the Runs view's review rows (src/reviews/contribution.ts).
  reviews: 'src/reviews/bundle.ts',
  // The app's tests in the Test Explorer: when the service offers them (src/serviceTests/contribution.ts).
  serviceTests: 'src/serviceTests/bundle.ts',
  // Automations: the Runs view's automation rows and Run Now (src/automations/contribution.ts).
  automations: 'src/automations/bundle.ts',
  // The API other extensions get from getAPI(1): the first getAPI call (src/publicApi/contribution.ts).
  publicApi: 'src/publicApi/publicApi.ts',
};
/**
 * Test hooks, built beside the production bundles but left out of the .vsix (.vscodeignore):
 * the test harness installs them (test/support/codeServer.ts, installVsix).
 */
const testEntries = {
  // AGENT_RUNS_SEED_TOKEN_FILE: the harness's token, stored after activation (src/extension.ts).
  testHooks: 'src/testHooks.ts',
};
const lazyExternals = [...Object.keys(lazyEntries), ...Object.keys(testEntries)].map((name) => `./${name}.js`);

/**
 * Keeps `require('./api.js')` (and the other lazy entries) external for our own sources only.
 * A plain `external: ['./api.js']` also matches relative imports inside node_modules: zod's
 * core imports its own `./api.js`, which then became a runtime require of dist/api.js (the
 * whole HTTP stack loaded at activation) and defeated tree shaking (~400 KB more).
 * @type {import('esbuild').Plugin}
 */
const lazyExternalsPlugin = {
  name: 'lazy-externals',
  setup(build) {
    const names = new Set(lazyExternals);
    build.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) =>
      names.has(args.path) && !/[\\/]node_modules[\\/]/.test(args.importer) ? { path: args.path, external: true } : undefined);
  },
};

/**
 * undici's HTTP/1 parser comes as two WebAssembly builds, each a 72 KB base64 module: with SIMD
 * and without. undici tries the SIMD one and falls back to the plain one when it cannot be
 * loaded, on every platform. The extension parses a few small JSON answers a second at most, so
 * the plain build alone serves it: the SIMD module resolves to one that throws, undici takes its
 * own fallback, and the .vsix is ~50 KB smaller. scripts/check-bundles.js fails if it comes back.
 * @type {import('esbuild').Plugin}
 */
const plainLlhttpPlugin = {
  name: 'plain-llhttp',
  setup(build) {
    build.onResolve({ filter: /llhttp_simd-wasm\.js$/ }, (args) =>
      /[\\/]undici[\\/]/.test(args.importer) ? { path: 'llhttp-simd-omitted', namespace: 'plain-llhttp' } : undefined);
    build.onLoad({ filter: /.*/, namespace: 'plain-llhttp' }, () => ({
      contents: "throw new Error('the SIMD build of llhttp is not bundled; undici falls back to the plain one')",
      loader: 'js',
    }));
  },
};

/**
 * Two more parts of undici the client never reaches, each replaced by a function that throws if
 * it ever were: HTTP/2 (`client-h2.js`, used only when a connection negotiates h2, which undici
 * offers only with `allowH2`; the client never sets it, so ALPN asks for http/1.1 alone) and the
 * multipart form parser (`formdata-parser.js`, used only by `Response.formData()`; the client
 * reads JSON). Likewise the fetch body module (`web/fetch/body.js`, with WebIDL, FormData and
 * MIME parsing behind it), which the HTTP/1 client requires only for a FormData request body;
 * the client sends JSON strings. ~54 KB of the bundle, ~17 KB of the .vsix.
 * @type {import('esbuild').Plugin}
 */
const UNUSED_UNDICI = {
  'client-h2.js': "module.exports = function connectH2() { throw new Error('HTTP/2 is not bundled: the client does not set allowH2') }",
  'formdata-parser': "const no = () => { throw new Error('multipart form parsing is not bundled: the client reads JSON') }; module.exports = { multipartFormDataParser: no, validateBoundary: no }",
  'web/fetch/body.js': "module.exports = { extractBody() { throw new Error('FormData request bodies are not bundled: the client sends JSON') } }",
};
const unusedUndiciPlugin = {
  name: 'unused-undici',
  setup(build) {
    build.onResolve({ filter: /^\.\/(client-h2\.js|formdata-parser)$/ }, (args) =>
      /[\\/]undici[\\/]lib[\\/]/.test(args.importer) ? { path: args.path.slice(2), namespace: 'unused-undici' } : undefined);
    build.onResolve({ filter: /^\.\.\/web\/fetch\/body\.js$/ }, (args) =>
      /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/.test(args.importer) ? { path: args.path.slice(3), namespace: 'unused-undici' } : undefined);
    build.onLoad({ filter: /.*/, namespace: 'unused-undici' }, (args) => ({ contents: UNUSED_UNDICI[args.path], loader: 'js' }));
  },
};

/**
 * markdown-it imports `decodeHTML` and `decodeHTMLStrict` from the `entities` package index,
 * which also brings its encoder's 23 KB entity map (a `new Map(...)` esbuild cannot drop as
 * unused). The webview only decodes: markdown-it gets the decoder module alone.
 * @type {import('esbuild').Plugin}
 */
const entitiesDecodeOnlyPlugin = {
  name: 'entities-decode-only',
  setup(build) {
    build.onResolve({ filter: /^entities$/ }, (args) =>
      /[\\/]markdown-it[\\/]/.test(args.importer) ? build.resolve('entities/lib/decode.js', { kind: args.kind, resolveDir: args.resolveDir }) : undefined);
  },
};

/**
 * Every `import * as vscode from 'vscode'` compiled to its own copy of the API object's
 * properties (esbuild's `__toESM`); with ~35 importing modules that was most of the time
 * loading dist/extension.js took (issue 35). Each bundle's modules import instead one module that
 * names each top-level export of @types/vscode once (`export const window = api.window`): esbuild
 * binds `vscode.window` straight to it and drops the names a bundle does not use, so nothing is
 * copied. tsc checks every `vscode.X` against the same @types/vscode, so no used name is missing.
 * @type {import('esbuild').Plugin}
 */
const vscodeExportsPlugin = {
  name: 'vscode-exports',
  setup(build) {
    const types = require('node:fs').readFileSync(require.resolve('@types/vscode/index.d.ts'), 'utf8');
    const names = [...new Set([...types.matchAll(/^\texport (?:namespace|class|enum|const|function|let|var) (\w+)/gm)].map((m) => m[1]))];
    if (names.length < 100) throw new Error(`vscode-exports: found only ${names.length} exports in @types/vscode`);
    const contents = `const api = require('vscode');\n${names.map((n) => `export const ${n} = /* @__PURE__ */ (() => api.${n})();`).join('\n')}\n`;
    build.onResolve({ filter: /^vscode$/ }, (args) =>
      args.namespace === 'vscode-exports' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'vscode-exports' });
    build.onLoad({ filter: /.*/, namespace: 'vscode-exports' }, () => ({ contents, loader: 'js' }));
  },
};

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
};

async function main() {
  if (production) {
    // A production build starts clean so no stale source map or chunk reaches the .vsix.
    require('node:fs').rmSync('dist', { recursive: true, force: true });
  }
  const contexts = await Promise.all([
    esbuild.context({
      ...common,
      entryPoints: { extension: 'src/extension.ts', ...lazyEntries, ...testEntries },
      outdir: 'dist',
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      external: ['vscode'],
      plugins: [vscodeExportsPlugin, lazyExternalsPlugin, plainLlhttpPlugin, unusedUndiciPlugin],
      metafile: true,
    }),
    esbuild.context({
      ...common,
      entryPoints: { main: 'src/panel/page/main.ts' },
      outdir: 'dist/webview',
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      loader: { '.css': 'css' },
      plugins: [entitiesDecodeOnlyPlugin],
    }),
  ]);
  if (watch) {
    await Promise.all(contexts.map((c) => c.watch()));
    return;
  }
  const results = await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  const meta = results[0].metafile;
  if (meta) {
    require('node:fs').writeFileSync('dist/meta.json', JSON.stringify(meta));
  }
  // Node reads the package.json nearest a module it loads for its "type"; without this one it is the
  // extension's own (58 KB), parsed while dist/extension.js loads at activation (~0.5 ms).
  require('node:fs').writeFileSync('dist/package.json', '{"type":"commonjs"}\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
