// @ts-check
/**
 * Checks the extension-host bundles esbuild wrote (dist/meta.json, see esbuild.js):
 *
 * 1. No module with state or identity exists twice. dist/extension.js and the lazily loaded
 *    bundles (dist/api.js, dist/launch.js, ...) share no module instances: a module bundled
 *    into two of them is two modules. That is harmless for pure functions and constants, and
 *    wrong for anything with module-level mutable state, a static, a singleton or a class
 *    whose identity is tested (`instanceof`). Every input found in more than one bundle must
 *    be listed in STATELESS below with the reason it is safe; anything else fails.
 * 2. Every `require('./x.js')` in a bundle names a bundle that was built.
 * 3. The activation bundle (dist/extension.js) is under the budget (100 KB by default,
 *    `--budget-kb N`), for a production (minified) build; a development build only reports it.
 *
 * Usage: node scripts/check-bundles.js [--budget-kb N] [--quiet]   (after `node esbuild.js [--production]`)
 * Exit code 1 when a check fails.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const ACTIVATION = 'dist/extension.js';

/**
 * Inputs allowed in more than one bundle, with why that is safe. A key ending in `/` covers
 * every file under it.
 * @type {Record<string, string>}
 */
const STATELESS = {
  'src/base/common/events.ts': 'Emitter keeps per-instance state; its static onListenerError is set by each entry that carries a copy (activate() in extension.js, buildRuns in runs.js)',
  'src/base/common/lazyBundle.ts': 'one function; each loader keeps what it loaded, and Node loads a bundle file once',
  'src/runs/runCommands.ts': 'the loader of dist/runCommands.js (extension.js and runs.js): both copies get the module Node loaded once',
  'vscode-exports:vscode': "each bundle's names for VS Code's own API object (esbuild.js, vscodeExportsPlugin); no state of its own",
  'src/connection/common/capabilities.ts': 'the pure capability table and pure functions over it (w-tapi); no module state',
  'src/run/common/appRowReads.ts': 'the AppRowReads class keeps per-instance state only (one instance per rows object); nothing tests instanceof across bundles (dist/reviews.js, dist/automations.js)',
  'src/run/common/sends/uncertainText.ts': 'a pure function: the words for a send the sender refused as uncertain (the tools, the Test Explorer, the groups, Run Now, branch sync)',
  'src/run/common/sends/outcome.ts': 'pure functions: the words after a send of the Test Groups view or Run Now (dist/testGroups.js, dist/automations.js)',
  'src/api/types.ts': 'constants and pure predicates (isTerminalStatus)',
  'src/api/sequence.ts': 'pure functions over sequence numbers (maxSequence, sequenceCeiling) and a constant',
  'src/api/errors.ts':
    'the ApiError class: isApiError() recognises an ApiError from any bundle by its name and kind, and the one `instanceof ApiError` (api/client.ts) only sees errors made inside dist/api.js',
  'src/api/baseUrl.ts': 'pure URL normalisation and constants',
  'src/api/sanitize.ts': 'pure text functions and constants',
  'src/api/json.ts': 'pure functions over JSON values',
  'src/run/common/transcript/parts.ts': 'pure functions: how tool parameters and attachments are shown',
  'src/connection/common/unauthorizedReport.ts': 'a type and a pure function building a plain object (the gate recognises it by shape)',
  'src/api/validate.ts': 'pure request checks (they throw ApiError; see src/api/errors.ts)',
  'src/base/common/disposable.ts': 'an abstract base class with per-instance state only; nothing tests `instanceof Disposable`',
  'src/base/common/l10n.ts': 'a constant',
  'src/run/common/testUsers.ts': 'pure functions: which test user a run signs in as and why it would fail (the Test Explorer, the Run App Test tool\'s confirmation)',
  'src/testGroups/common/serviceGroups.ts': 'pure functions of their arguments (the group words, merging and checks): no module state',
  'src/panel/common/viewType.ts': 'a constant',
  'src/run/common/export/export.ts': 'pure functions and constants (the panel\'s "open in editor" and the streamed exports of dist/transcripts.js)',
  'src/run/common/export/exportLabels.ts': 'the export labels: constants and a pure function (export.ts re-exports them)',
  'src/run/common/export/exportFields.ts':
    'pure field allow-lists and helpers of the exports; GapMarks keeps per-instance state only and nothing tests `instanceof`',
  'src/run/common/export/exportMarkdown.ts':
    'pure functions (the panel\'s "open in editor" and the streamed Markdown export of dist/transcripts.js); MarkdownText keeps per-instance state only',
  'src/run/common/transcript/transcript.ts':
    'classes with per-instance state only: dist/transcripts.js creates the one store and the panel receives it; nothing tests `instanceof`',
  'src/run/common/transcript/entry.ts': 'a transcript entry\'s types and one pure copy (freeze); transcript.ts re-exports the type',
  'src/run/common/transcript/transcriptTypes.ts': 'types and two constants (the default bounds) of transcript.ts, which re-exports them',
  'src/run/common/transcript/order.ts': 'a pure comparison',
  'src/run/common/transcript/identity.ts':
    'a class with per-instance state only (each Transcript owns one) and pure functions; nothing tests `instanceof`',
  'src/run/common/transcript/message.ts': 'pure functions over one message',
  'src/run/common/transcript/store.ts':
    'a class with per-instance state only: dist/transcripts.js creates the one store and the panel receives it; nothing tests `instanceof`',
  'src/testGroups/common/testIds/testFileGlobs.ts': 'pure glob functions and constants',
  'src/testGroups/settings.ts': 'configuration read on each call, constants',
  'src/testGroups/copyId.ts': 'one stateless function',
  'src/testing/testKey.ts': 'two pure functions of a TestItem',
  'src/assistant/common/': 'pure functions and constants (tool schemas, text building); no module state, no classes tested by identity',
  'src/run/common/ledger/observe.ts': 'pure functions over a record and a read',
  'src/run/common/ledger/record.ts': 'the record type and pure helpers',
  'src/run/common/ledger/runState.ts':
    'pure derivations of a run\'s state from its record; actId\'s counter only adds to a time and random part, so an ID stays unique from any bundle',
  'src/run/common/firstWords.ts': 'one pure function (the first words of a prompt)',
  'src/connection/common/describeNoClient.ts': 'one pure function of a connection state',
  'src/runs/common/nodes.ts': 'pure tree-node model functions',
  'src/runs/common/presentation.ts': 'pure labels and descriptions of a run',
  'src/run/common/refusals.ts': 'pure functions: the words of a refused send (no follow-ups, the 409s)',
  'src/base/common/time.ts': 'pure time formatting',
  'src/base/common/text.ts': 'pure functions over service text (controls dropped, cut, fenced)',
  'src/run/common/rows.ts': 'constants and pure functions: a Runs view row as plain data (the label bound, plain text, a run\'s status in words)',
  'src/run/common/reviews.ts': 'pure functions and constants: which listed review is which, the lists\' groups in order, a review\'s label',
  'src/run/common/appTestGroups.ts': 'pure functions over the client and records passed in: an app\'s test groups, a group\'s size in words; no module state',
  'src/run/common/polling/settings.ts': 'constants and pure functions (the clamp, the dormant delay): the poller cadences, read by the service tests store',
  'src/connection/showApiError.ts': 'functions that take the live gate and connection as parameters; no module state',
  'src/connection/ownCommands.ts': 'one stateless function (runs a command through vscode.commands)',
  'src/connection/seedToken.ts': 'a constant (the variable\'s name) in dist/extension.js; the function only in the test hooks (dist/testHooks.js)',
  'src/connection/tokenStore.ts':
    'dist/runCommands.js takes only validateTokenShape (Set API Token), a pure function; the TokenStore class (the one instance is made in activate()) is tree-shaken out of it',
  'src/run/rowTooltip.ts': 'one pure function building a MarkdownString (the tooltips of runs, code reviews and automations)',
  'src/runs/commands/pickRun.ts': 'functions over deps; no module state',
  'src/run/followUp.ts': 'functions over deps (the one send lock is deps.sends); no module state',
  'src/run/followUpSends.ts':
    'the FollowUpSends class keeps per-instance state only (the one instance is deps.sends); dist/runCommands.js uses its pure describeFollowUpFailure',
  'src/base/common/navigator.ts': 'the Navigator class keeps per-instance state only (one per form shown); nothing tests `instanceof`',
  'src/run/common/startFailure.ts': 'pure functions: the words and buttons of a failed start and what the person clicks after it (the launch form\'s and the code review form\'s)',
  'src/run/common/startFields.ts': 'pure field checks the launch and code review forms share',
  'src/connection/common/capabilities.ts': 'a pure table of capabilities and pure functions over stored lists (the gate in dist/extension.js, the assistant through connection/common/codeReviewsServed.ts)',
  'src/reviews/common/': 'pure functions and constants (the code review form, its steps and versions; the name a review is listed under, in dist/send.js)',
  'src/run/common/branches/': 'pure functions and constants (an app\'s known branches, following a branch\'s sync): no module state (dist/reviews.js, dist/serviceTests.js)',
  'src/serviceTests/common/start.ts': 'pure functions (the words of a failed start, a service test\'s failure for Ask Agent to Fix)',
  'src/run/branches.ts': 'functions over the global state, sender and client passed in (known branches, Sync branch with its progress); no module state (dist/reviews.js, dist/serviceTests.js)',
  'src/run/knownReviews.ts': 'functions over the global state and client passed in (the reviews whose ID is known); no module state (dist/reviews.js, dist/assistant.js)',
  'node_modules/zod/':
    'zod 4 keeps its global config and registry on globalThis (shared by every copy) and answers instanceof from trait names, not class identity; no schema object crosses bundles',
};

/**
 * Inputs that must never be duplicated, with why (a clearer message than "not listed").
 * @type {Record<string, string>}
 */
const NEVER = {
  'src/run/common/ledger/ledger.ts': 'the run ledger: pass the live instance through deps',
  'src/run/common/polling/poller.ts': 'the poller: pass the live instance through deps',
  'src/runs/': 'live objects of activate(): pass them through deps',
  'src/connection/': 'live objects of activate(): pass them through deps',
  'src/launch/contribution.ts': 'registration and the launch bundle\'s loader: dist/extension.js only',
  'src/panel/contribution.ts': 'registration and the panel bundle\'s loader: dist/extension.js only',
  'src/testGroups/contribution.ts': 'registration and the test groups bundle\'s loader: dist/extension.js only',
};

/** @param {Record<string, string>} table @param {string} input */
function lookup(table, input) {
  const key = Object.keys(table).find((k) => (k.endsWith('/') ? input.startsWith(k) : input === k));
  return key === undefined ? undefined : table[key];
}

/**
 * An input's name for the tables: a package file from `node_modules/` on (esbuild names it by
 * its real path, `../../elsewhere/node_modules/...` when node_modules is a symlink).
 * @param {string} input
 */
function normalize(input) {
  const i = input.lastIndexOf('node_modules/');
  return i > 0 ? input.slice(i) : input;
}

/** @param {number} bytes */
function kb(bytes) {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function main() {
  const args = process.argv.slice(2);
  const quiet = args.includes('--quiet');
  const budgetArg = args.indexOf('--budget-kb');
  const budgetKb = budgetArg >= 0 ? Number(args[budgetArg + 1]) : 100;
  const metaPath = path.join(dist, 'meta.json');
  if (!fs.existsSync(metaPath)) {
    console.error('dist/meta.json is missing: run `node esbuild.js --production` first.');
    return 1;
  }
  /** @type {import('esbuild').Metafile} */
  const meta = JSON.parse(fs.readFileSync(metaPath, 'utf8'));
  const outputs = Object.entries(meta.outputs).filter(([name]) => name.endsWith('.js'));
  const problems = [];

  // Which bundles each input is in (only where it left code behind).
  /** @type {Map<string, { output: string; bytes: number }[]>} */
  const where = new Map();
  for (const [output, info] of outputs) {
    for (const [name, { bytesInOutput }] of Object.entries(info.inputs)) {
      if (bytesInOutput === 0) continue;
      const input = normalize(name);
      const list = where.get(input) ?? [];
      list.push({ output, bytes: bytesInOutput });
      where.set(input, list);
    }
  }

  if (!quiet) {
    console.log('Bundles:');
    for (const [output, info] of outputs) {
      console.log(`  ${output.padEnd(22)} ${kb(info.bytes).padStart(9)}`);
    }
  }

  const duplicated = [...where].filter(([, list]) => list.length > 1).sort(([a], [b]) => a.localeCompare(b));
  if (!quiet && duplicated.length > 0) console.log('\nIn more than one bundle:');
  /** Allowed duplicates under a folder key (a package), reported once: key -> bytes per bundle. */
  /** @type {Map<string, Map<string, number>>} */
  const folders = new Map();
  for (const [input, list] of duplicated) {
    const inBundles = list.map((l) => `${path.basename(l.output)} ${l.bytes} B`).join(', ');
    const safe = lookup(STATELESS, input);
    if (safe !== undefined) {
      const folder = Object.keys(STATELESS).find((k) => k.endsWith('/') && input.startsWith(k));
      if (folder !== undefined) {
        const sums = folders.get(folder) ?? new Map();
        for (const l of list) sums.set(path.basename(l.output), (sums.get(path.basename(l.output)) ?? 0) + l.bytes);
        folders.set(folder, sums);
      } else if (!quiet) {
        console.log(`  ok    ${input} (${inBundles}): ${safe}`);
      }
      continue;
    }
    const never = lookup(NEVER, input);
    problems.push(`${input} is in ${inBundles}: ${never ?? 'not known to be stateless; pass the live object in, or list it in STATELESS (scripts/check-bundles.js) with the reason it is safe'}`);
  }

  if (!quiet) {
    for (const [folder, sums] of folders) {
      const inBundles = [...sums].map(([bundle, bytes]) => `${bundle} ${bytes} B`).join(', ');
      console.log(`  ok    ${folder}** (${inBundles}): ${STATELESS[folder]}`);
    }
  }

  // Every lazy require resolves to a built bundle.
  const built = new Set(outputs.map(([name]) => path.basename(name)));
  for (const [output] of outputs) {
    const text = fs.readFileSync(path.join(root, output), 'utf8');
    for (const m of text.matchAll(/require\(["']\.\/([\w.-]+\.js)["']\)/g)) {
      if (!built.has(m[1])) problems.push(`${output} requires ./${m[1]}, which was not built`);
    }
  }

  // undici's SIMD parser stays out (esbuild.js plainLlhttpPlugin): a slice of its base64 module
  // found in any bundle means the plugin no longer matches how undici requires it.
  const simdSource = path.join(root, 'node_modules/undici/lib/llhttp/llhttp_simd-wasm.js');
  if (fs.existsSync(simdSource)) {
    const b64 = /'([A-Za-z0-9+/=]{1000,})'/.exec(fs.readFileSync(simdSource, 'utf8'));
    const plain = fs.readFileSync(path.join(root, 'node_modules/undici/lib/llhttp/llhttp-wasm.js'), 'utf8');
    // A slice of the SIMD build that the plain build does not share.
    const probe = b64 ? [2000, 8000, 20000, 40000].map((at) => b64[1].slice(at, at + 80)).find((s) => s.length === 80 && !plain.includes(s)) : undefined;
    if (!probe) problems.push(`cannot read undici's SIMD llhttp module (${simdSource}) to check it is not bundled`);
    for (const [output] of outputs) {
      if (probe && fs.readFileSync(path.join(root, output), 'utf8').includes(probe)) {
        problems.push(`${output} bundles undici's SIMD llhttp build (see plainLlhttpPlugin in esbuild.js)`);
      }
    }
  }

  // The activation budget, judged on a production build only (no source maps next to it).
  const activation = meta.outputs[ACTIVATION];
  if (!activation) {
    problems.push(`${ACTIVATION} is not in dist/meta.json`);
  } else {
    const production = !fs.existsSync(path.join(root, `${ACTIVATION}.map`));
    const over = activation.bytes >= budgetKb * 1024;
    const line = `${ACTIVATION}: ${kb(activation.bytes)} (budget: under ${budgetKb} KB)`;
    if (!production) {
      if (!quiet) console.log(`\n${line}; a development build, not judged`);
    } else if (over) {
      problems.push(`${line}: over budget`);
    } else if (!quiet) {
      console.log(`\n${line}: PASS`);
    }
  }

  if (problems.length > 0) {
    console.error(`\ncheck-bundles: ${problems.length} problem(s):`);
    for (const p of problems) console.error(`  - ${p}`);
    return 1;
  }
  if (!quiet) console.log('check-bundles: OK');
  return 0;
}

process.exitCode = main();
