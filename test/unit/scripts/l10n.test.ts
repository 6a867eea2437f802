// scripts/l10n.js (npm run l10n; the check in npm run lint), run as the command line runs it,
// on small source trees; and its extraction checked against TypeScript's type checker on src/.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';

// Tests run from a compiled copy (out/); the script stays in the source tree.
function findRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'scripts', 'l10n.js')) && fs.existsSync(path.join(dir, 'package.json'))) return dir;
  }
  throw new Error('scripts/l10n.js not found above ' + __dirname);
}
const ROOT = findRoot();
const SCRIPT = path.join(ROOT, 'scripts', 'l10n.js');

interface Run {
  status: number | null;
  output: string;
}

function run(args: string[]): Run {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const PACKAGE = {
  name: 'fixture',
  contributes: {
    commands: [{ command: 'x.go', title: '%command.go%', category: '%category%' }],
    configuration: { title: 'Fixture', properties: { 'x.a': { type: 'string', description: '%config.a%' } } },
  },
};
const NLS = { 'command.go': 'Go', category: 'Fixture', 'config.a': 'A setting' };

const SOURCES: Record<string, string> = {
  'src/extension.ts': [
    "import * as vscode from 'vscode';",
    "vscode.l10n.t('Plain {0}', 1);",
    'vscode.l10n.t("Double \\"quoted\\" and it\'s escaped \\u00e9");',
    'vscode.l10n.t(`Template without substitutions`);',
    "vscode.l10n.t(\n  'On the next line',\n);",
    "vscode.l10n.t({ message: 'With a comment', comment: ['for ', 'translators'] });",
    "vscode.l10n.t({ message: 'Comment-less object' });",
    "const t = vscode.l10n.t;",
    "t('Through an alias');",
    "const { t: tr } = vscode.l10n;",
    "tr('Through a destructured alias');",
    "declare const other: { t(m: string): string };",
    "other.t('Not l10n: another object');",
    "declare function t2(m: string): string;",
    "t2('Not l10n: another function');",
  ].join('\n'),
  'src/pure/form.ts': [
    "import type { L10n } from '../util/l10n';",
    "export function check(v: string, l10n: L10n): string { return l10n.t('From a parameter: {0}', v); }",
    "export function pick(input: { l10n?: L10n }, plainL10n: L10n): string { return (input.l10n ?? plainL10n).t('Through ??'); }",
    "export class C { constructor(private readonly l10n: L10n) {} m(): string { return this.l10n.t('Through this.l10n'); } }",
  ].join('\n'),
  'src/types.d.ts': "declare const l10n: { t(m: string): string }; l10n.t('Not read: a .d.ts');",
};

function fixture(files: Record<string, string> = SOURCES, nls: Record<string, string> = NLS): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'l10n-script-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(PACKAGE, null, 2));
  fs.writeFileSync(path.join(dir, 'package.nls.json'), JSON.stringify(nls, null, 2));
  return dir;
}

function readBundle(dir: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(dir, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, unknown>;
}

describe('npm run l10n (scripts/l10n.js)', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const make = (files?: Record<string, string>, nls?: Record<string, string>): string => {
    const d = fixture(files, nls);
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('writes every l10n.t message of src/, however l10n is reached, sorted, and nothing else', () => {
    const dir = make();
    const r = run(['--root', dir]);
    assert.equal(r.status, 0, r.output);
    assert.deepEqual(readBundle(dir), {
      'Comment-less object': 'Comment-less object',
      'Double "quoted" and it\'s escaped é': 'Double "quoted" and it\'s escaped é',
      'From a parameter: {0}': 'From a parameter: {0}',
      'On the next line': 'On the next line',
      'Plain {0}': 'Plain {0}',
      'Template without substitutions': 'Template without substitutions',
      'Through ??': 'Through ??',
      'Through a destructured alias': 'Through a destructured alias',
      'Through an alias': 'Through an alias',
      'Through this.l10n': 'Through this.l10n',
      'With a comment/for translators': { message: 'With a comment', comment: ['for ', 'translators'] },
    });
    const text = fs.readFileSync(path.join(dir, 'l10n', 'bundle.l10n.json'), 'utf8');
    assert.ok(text.endsWith('}\n'));
    assert.deepEqual(Object.keys(JSON.parse(text) as object), Object.keys(JSON.parse(text) as object).sort());
  });

  it('--check passes on a fresh bundle and fails on a stale one, naming what is missing and what is unused', () => {
    const dir = make();
    assert.equal(run(['--root', dir]).status, 0);
    const fresh = run(['--root', dir, '--check']);
    assert.equal(fresh.status, 0, fresh.output);
    assert.match(fresh.output, /is up to date \(11 messages\)/);

    const file = path.join(dir, 'src', 'pure', 'form.ts');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("'Through ??'", "'Through ?? (reworded)'"));
    const stale = run(['--root', dir, '--check']);
    assert.equal(stale.status, 1, stale.output);
    assert.match(stale.output, /out of date.*Run `npm run l10n`/);
    assert.match(stale.output, /messages in the code but not in the bundle \(1\):\s+"Through \?\? \(reworded\)"/);
    assert.match(stale.output, /messages in the bundle that the code no longer uses \(1\):\s+"Through \?\?"/);

    assert.equal(run(['--root', dir]).status, 0);
    assert.equal(run(['--root', dir, '--check']).status, 0);
  });

  it('--check fails on a bundle that has the same messages written differently, and on a missing one', () => {
    const dir = make();
    assert.equal(run(['--root', dir]).status, 0);
    const bundlePath = path.join(dir, 'l10n', 'bundle.l10n.json');
    fs.writeFileSync(bundlePath, JSON.stringify(readBundle(dir)));
    const r = run(['--root', dir, '--check']);
    assert.equal(r.status, 1);
    assert.match(r.output, /written differently/);
    fs.rmSync(bundlePath);
    assert.match(run(['--root', dir, '--check']).output, /is missing/);
  });

  it('a message the extractor cannot read fails, with the file and line, and writes nothing', () => {
    const dir = make({
      'src/a.ts': "import * as vscode from 'vscode';\nconst m = 'x';\nvscode.l10n.t('Fine');\nvscode.l10n.t(m);\nvscode.l10n.t(`Hello ${m}`);\n",
    });
    const r = run(['--root', dir]);
    assert.equal(r.status, 1);
    assert.match(r.output, /src\/a\.ts:4: the message of vscode\.l10n\.t\(…\) must be a string literal/);
    assert.match(r.output, /src\/a\.ts:5: .*not `Hello \$\{m\}`/);
    assert.equal(fs.existsSync(path.join(dir, 'l10n', 'bundle.l10n.json')), false);
    assert.equal(run(['--root', dir, '--check']).status, 1);
  });

  it('package.nls.json must define every %key% of package.json, and use every key it defines', () => {
    const missing = make(SOURCES, { 'command.go': 'Go', category: 'Fixture', unused: 'Never shown' });
    const r = run(['--root', missing]);
    assert.equal(r.status, 1, r.output);
    assert.match(r.output, /package\.json contributes\.configuration\.properties\.x\.a\.description uses %config\.a%, which package\.nls\.json does not define/);
    assert.match(r.output, /package\.nls\.json defines "unused", which package\.json does not use/);
    assert.equal(run(['--root', missing, '--check']).status, 1);

    const empty = make(SOURCES, { ...NLS, category: ' ' });
    assert.match(run(['--root', empty]).output, /"category" must be a non-empty string/);
  });

  it('finds every call TypeScript resolves to vscode.l10n.t or L10n.t in src/, each with a literal message', () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'l10n-out-')), 'bundle.json');
    dirs.push(path.dirname(out));
    const r = run(['--out', out]);
    assert.equal(r.status, 0, r.output);
    const extracted = new Set(Object.keys(JSON.parse(fs.readFileSync(out, 'utf8')) as object));
    const extractedCalls = Number(/from (\d+) calls/.exec(r.output)?.[1]);

    const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    });
    assert.ok(config);
    const srcDir = path.join(ROOT, 'src') + path.sep;
    const options = { ...config.options, noEmit: true };
    // Types come from the code, not from doc comments (those count only in .js files): not parsing
    // them spares a fifth of the parse (vscode.d.ts and @types/node are mostly comments).
    const host = ts.createCompilerHost(options);
    host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeInfo;
    const program = ts.createProgram(config.fileNames.filter((f) => path.resolve(f).startsWith(srcDir)), options, host);
    const checker = program.getTypeChecker();
    const isL10nT = (decl: ts.Declaration | undefined): boolean => {
      if (!decl || !(ts.isFunctionDeclaration(decl) || ts.isMethodSignature(decl)) || decl.name?.getText() !== 't') return false;
      const file = decl.getSourceFile().fileName.split(path.sep).join('/');
      if (file.endsWith('/src/base/common/l10n.ts')) return true;
      // `export namespace l10n { export function t(...) }` in @types/vscode.
      const ns = decl.parent.parent;
      return file.endsWith('/@types/vscode/index.d.ts') && ts.isModuleDeclaration(ns) && ns.name.getText() === 'l10n';
    };
    const seen = new Set<string>();
    const unreadable: string[] = [];
    let calls = 0;
    for (const sf of program.getSourceFiles()) {
      if (!path.resolve(sf.fileName).startsWith(srcDir)) continue;
      const visit = (node: ts.Node): void => {
        // The callee's type, not the call's resolved signature: a call reaches l10n.t exactly when
        // its callee has that function's type, and typing the callees alone spares resolving every
        // call's arguments (8,000 calls; about half the checker's time, which under load outlasted the limit).
        if (ts.isCallExpression(node) && checker.getTypeAtLocation(node.expression).getCallSignatures().some((s) => isL10nT(s.declaration))) {
          calls++;
          const first = node.arguments[0];
          if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) seen.add(first.text);
          else unreadable.push(`${sf.fileName}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    assert.ok(calls > 100, `only ${calls} calls: the type-checker side of this test is broken`);
    assert.deepEqual(unreadable, []);
    assert.deepEqual([...seen].filter((m) => !extracted.has(m)), [], 'messages the extractor missed (call l10n.t through a value named l10n)');
    assert.ok(extractedCalls >= calls, `the extractor found ${extractedCalls} calls, the type checker ${calls}`);
  });
});
