// @ts-check
/**
 * The localization files, generated from the code and checked in `npm run lint`:
 *
 * 1. l10n/bundle.l10n.json: every message passed to `l10n.t(...)` under src/, sorted, each
 *    mapped to itself (the English bundle; translators copy it to bundle.l10n.<lang>.json).
 * 2. package.nls.json: every `%key%` in package.json has a value, and every key is used.
 *
 *   node scripts/l10n.js            write l10n/bundle.l10n.json (npm run l10n), then check 2
 *   node scripts/l10n.js --check    exit 1 when the committed bundle differs from the code, or 2 fails
 *   options: --root <dir> (default: the repository), --out <file> (write the bundle there instead)
 *
 * Why not @vscode/l10n-dev (0.0.35): it only reads files that import `vscode` and only calls
 * spelled `vscode.l10n.t` / `l10n.t` after that import, so it misses the pure modules, which
 * take an `L10n` parameter (src/base/common/l10n.ts) and cannot import `vscode`, and the
 * `const t = vscode.l10n.t` alias of src/panel/host/strings.ts: 283 of the 446 messages.
 *
 * What counts as a call, found with TypeScript's parser (no type checking, so it is fast; a
 * unit test checks it against the type checker, test/unit/scripts/l10n.test.ts):
 * - `<l10n>.t(...)`, where `<l10n>` is `l10n`, `somethingL10n`, `<anything>.l10n`, or such a
 *   value in parentheses, `??`, `||` or `?:` (`(input.l10n ?? plainL10n).t(...)`);
 * - `t(...)` where the file declares `const t = <l10n>.t` or `const { t } = <l10n>`.
 * The first argument must be a string literal (or a template without substitutions), or an
 * object literal `{ message, comment }` as vscode.l10n.t takes it; anything else is an error,
 * since the extractor could not see the message.
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const BUNDLE = path.join('l10n', 'bundle.l10n.json');
const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts']);

/** @typedef {{ message: string, comment: string[] }} CommentedMessage */
/** @typedef {Record<string, string | CommentedMessage>} Bundle */
/** @typedef {{ file: string, text: string }} SourceFile */

/**
 * Every .ts file under `dir` (not .d.ts), in a stable order, paths relative to `root`.
 * @param {string} root
 * @param {string} dir
 * @returns {SourceFile[]}
 */
function readSources(root, dir) {
  /** @type {SourceFile[]} */
  const out = [];
  /** @param {string} d */
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(full);
      } else if (SOURCE_EXTENSIONS.has(path.extname(entry.name)) && !entry.name.endsWith('.d.ts')) {
        out.push({ file: path.relative(root, full).split(path.sep).join('/'), text: fs.readFileSync(full, 'utf8') });
      }
    }
  };
  walk(dir);
  return out;
}

/**
 * True for an expression that is an l10n object: `l10n`, `plainL10n`, `vscode.l10n`,
 * `this.l10n`, `(a ?? b)` of those.
 * @param {ts.Expression} node
 * @returns {boolean}
 */
function isL10nObject(node) {
  if (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) {
    return isL10nObject(node.expression);
  }
  if (ts.isIdentifier(node)) return node.text === 'l10n' || node.text.endsWith('L10n');
  if (ts.isPropertyAccessExpression(node)) return node.name.text === 'l10n';
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind;
    return (op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.BarBarToken) && (isL10nObject(node.left) || isL10nObject(node.right));
  }
  if (ts.isConditionalExpression(node)) return isL10nObject(node.whenTrue) || isL10nObject(node.whenFalse);
  return false;
}

/**
 * @param {ts.Expression} node
 * @returns {boolean} `<l10n>.t`
 */
function isL10nT(node) {
  if (ts.isParenthesizedExpression(node)) return isL10nT(node.expression);
  return ts.isPropertyAccessExpression(node) && node.name.text === 't' && isL10nObject(node.expression);
}

/**
 * Names the file binds to an l10n `t`: `const t = vscode.l10n.t`, `const { t } = vscode.l10n`,
 * `const { t: tr } = l10n`.
 * @param {ts.SourceFile} sf
 * @returns {Set<string>}
 */
function tAliases(sf) {
  /** @type {Set<string>} */
  const names = new Set();
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isVariableDeclaration(node) && node.initializer) {
      if (ts.isIdentifier(node.name) && isL10nT(node.initializer)) {
        names.add(node.name.text);
      } else if (ts.isObjectBindingPattern(node.name) && isL10nObject(node.initializer)) {
        for (const el of node.name.elements) {
          const key = el.propertyName ?? el.name;
          if (ts.isIdentifier(key) && key.text === 't' && ts.isIdentifier(el.name)) names.add(el.name.text);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return names;
}

/**
 * The text of a string literal or a template without substitutions; undefined otherwise.
 * @param {ts.Expression} node
 * @returns {string | undefined}
 */
function literalText(node) {
  if (ts.isParenthesizedExpression(node)) return literalText(node.expression);
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : undefined;
}

/**
 * `{ message: '…', comment: '…' | ['…'] }`; undefined when it is not such a literal.
 * @param {ts.Expression} node
 * @returns {CommentedMessage | undefined}
 */
function messageObject(node) {
  if (!ts.isObjectLiteralExpression(node)) return undefined;
  /** @type {string | undefined} */
  let message;
  /** @type {string[]} */
  let comment = [];
  for (const p of node.properties) {
    if (!ts.isPropertyAssignment(p) || !(ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) continue;
    if (p.name.text === 'message') {
      message = literalText(p.initializer);
      if (message === undefined) return undefined;
    } else if (p.name.text === 'comment') {
      const single = literalText(p.initializer);
      if (single !== undefined) {
        comment = [single];
      } else if (ts.isArrayLiteralExpression(p.initializer)) {
        const parts = p.initializer.elements.map((e) => literalText(e));
        if (parts.some((c) => c === undefined)) return undefined;
        comment = parts.map(String);
      } else {
        return undefined;
      }
    }
  }
  return message === undefined ? undefined : { message, comment };
}

/**
 * Every l10n message of the files, and what could not be read.
 * @param {readonly SourceFile[]} files
 * @returns {{ bundle: Bundle, calls: number, problems: string[] }}
 */
function extractMessages(files) {
  /** @type {Bundle} */
  const bundle = {};
  /** @type {string[]} */
  const problems = [];
  let calls = 0;
  for (const { file, text } of files) {
    // Every call read here names an l10n object (`l10n`, `…L10n`, `.l10n`), at the call or in the
    // file's alias of it: a file without those letters has none, and is not parsed.
    if (!/l10n/i.test(text)) continue;
    const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
    const aliases = tAliases(sf);
    /** @param {ts.Node} node */
    const visit = (node) => {
      if (ts.isCallExpression(node) && (isL10nT(node.expression) || (ts.isIdentifier(node.expression) && aliases.has(node.expression.text)))) {
        calls++;
        const where = `${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
        const first = node.arguments[0];
        const text = first ? literalText(first) : undefined;
        const obj = first && text === undefined ? messageObject(first) : undefined;
        if (text !== undefined) {
          bundle[text] = text;
        } else if (obj) {
          if (obj.comment.length === 0) bundle[obj.message] = obj.message;
          else bundle[`${obj.message}/${obj.comment.join('')}`] = obj;
        } else {
          const shown = first ? first.getText(sf).replace(/\s+/g, ' ').slice(0, 80) : '(nothing)';
          problems.push(`${where}: the message of ${node.expression.getText(sf)}(…) must be a string literal (or { message, comment }), not ${shown}; pass values as {0}, {1}… arguments.`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { bundle, calls, problems };
}

/**
 * The bundle as written: keys sorted by code unit, two-space JSON, final newline.
 * @param {Bundle} bundle
 * @returns {string}
 */
function renderBundle(bundle) {
  /** @type {Bundle} */
  const sorted = {};
  for (const key of Object.keys(bundle).sort()) sorted[key] = bundle[key];
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

/**
 * `%key%` placeholders of package.json against package.nls.json: both ways.
 * @param {unknown} pkg
 * @param {unknown} nls
 * @returns {string[]}
 */
function checkNls(pkg, nls) {
  /** @type {string[]} */
  const problems = [];
  if (typeof nls !== 'object' || nls === null || Array.isArray(nls)) return ['package.nls.json is not a JSON object.'];
  const values = /** @type {Record<string, unknown>} */ (nls);
  /** @type {Map<string, string>} key → where in package.json */
  const used = new Map();
  /**
   * @param {unknown} v
   * @param {string} at
   */
  const walk = (v, at) => {
    if (typeof v === 'string') {
      const m = /^%([^%\s]+)%$/.exec(v);
      if (m) {
        if (!used.has(m[1])) used.set(m[1], at);
      } else if (/^%[A-Za-z][\w.-]*$|^[A-Za-z][\w.-]*%$/.test(v)) {
        problems.push(`package.json ${at}: "${v}" looks like a broken %key% placeholder.`);
      }
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${at}[${i}]`));
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) walk(x, at === '' ? k : `${at}.${k}`);
    }
  };
  walk(pkg, '');
  for (const [key, at] of used) {
    if (!(key in values)) problems.push(`package.json ${at} uses %${key}%, which package.nls.json does not define.`);
    else if (typeof values[key] !== 'string' || String(values[key]).trim() === '') problems.push(`package.nls.json: "${key}" must be a non-empty string.`);
  }
  for (const key of Object.keys(values)) {
    if (!used.has(key)) problems.push(`package.nls.json defines "${key}", which package.json does not use (%${key}%).`);
  }
  return problems;
}

/**
 * What differs between the committed bundle and the generated one, for the message.
 * @param {string} committedText
 * @param {Bundle} generated
 * @returns {string[]}
 */
function describeDifference(committedText, generated) {
  /** @type {unknown} */
  let committed;
  try {
    committed = JSON.parse(committedText);
  } catch (e) {
    return [`it is not valid JSON (${e instanceof Error ? e.message : String(e)})`];
  }
  if (typeof committed !== 'object' || committed === null || Array.isArray(committed)) return ['it is not a JSON object'];
  const old = /** @type {Record<string, unknown>} */ (committed);
  /** @type {string[]} */
  const lines = [];
  const missing = Object.keys(generated).filter((k) => !(k in old)).sort();
  const unused = Object.keys(old).filter((k) => !(k in generated)).sort();
  const changed = Object.keys(generated).filter((k) => k in old && JSON.stringify(old[k]) !== JSON.stringify(generated[k])).sort();
  /**
   * @param {string} title
   * @param {string[]} keys
   */
  const list = (title, keys) => {
    if (keys.length === 0) return;
    lines.push(`${title} (${keys.length}):`);
    for (const k of keys.slice(0, 20)) lines.push(`  ${JSON.stringify(k)}`);
    if (keys.length > 20) lines.push(`  … and ${keys.length - 20} more`);
  };
  list('messages in the code but not in the bundle', missing);
  list('messages in the bundle that the code no longer uses', unused);
  list('messages whose entry differs', changed);
  if (lines.length === 0) lines.push('the same messages, written differently (order or formatting)');
  return lines;
}

/** @param {string[]} argv */
function main(argv) {
  const check = argv.includes('--check');
  /** @param {string} name */
  const option = (name) => {
    const i = argv.indexOf(name);
    if (i === -1) return undefined;
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value`);
    return v;
  };
  const root = path.resolve(option('--root') ?? path.join(__dirname, '..'));
  const outOption = option('--out');
  const bundlePath = outOption !== undefined ? path.resolve(outOption) : path.join(root, BUNDLE);

  const { bundle, calls, problems } = extractMessages(readSources(root, path.join(root, 'src')));
  const nlsProblems = checkNls(
    JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')),
    JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8')),
  );
  const rendered = renderBundle(bundle);
  let failed = false;
  for (const p of problems) {
    console.error(`l10n: ${p}`);
    failed = true;
  }
  const shownPath = path.relative(process.cwd(), bundlePath) || bundlePath;
  if (check) {
    const committed = fs.existsSync(bundlePath) ? fs.readFileSync(bundlePath, 'utf8') : undefined;
    if (committed === undefined) {
      console.error(`l10n: ${shownPath} is missing. Run \`npm run l10n\` and commit it.`);
      failed = true;
    } else if (committed !== rendered) {
      console.error(`l10n: ${shownPath} is out of date with the l10n.t(…) calls in src/. Run \`npm run l10n\` and commit it.`);
      for (const line of describeDifference(committed, bundle)) console.error(`  ${line}`);
      failed = true;
    }
  } else if (problems.length === 0) {
    fs.mkdirSync(path.dirname(bundlePath), { recursive: true });
    const before = fs.existsSync(bundlePath) ? fs.readFileSync(bundlePath, 'utf8') : undefined;
    if (before !== rendered) fs.writeFileSync(bundlePath, rendered);
    console.log(`l10n: ${shownPath}: ${Object.keys(bundle).length} messages from ${calls} calls${before === rendered ? ' (unchanged)' : ''}.`);
  }
  for (const p of nlsProblems) {
    console.error(`l10n: ${p}`);
    failed = true;
  }
  if (check && !failed) console.log(`l10n: ${shownPath} is up to date (${Object.keys(bundle).length} messages); package.nls.json covers package.json.`);
  return failed ? 1 : 0;
}

module.exports = { readSources, extractMessages, renderBundle, checkNls, describeDifference };

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`l10n: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 2;
  }
}
