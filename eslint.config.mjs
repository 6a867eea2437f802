// @ts-check
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noVscode = {
  'no-restricted-imports': ['error', {
    paths: [{ name: 'vscode', message: 'common/, api/ and panel/page/ are pure: pass what they need in.' }],
  }],
};

// common/ never imports vscode; a feature never imports another feature, only the shared
// folders below it (base, api, connection, run), and those never import a feature.
const SHARED = ['base', 'api', 'connection', 'run'];
// The composition root and its test-only twin (dist/testHooks.js) wire every feature together.
const ROOTS = ['extension.ts', 'testHooks.ts'];
const FEATURES = ['assistant', 'automations', 'launch', 'panel', 'publicApi', 'reviews', 'runs', 'serviceTests', 'testGroups', 'testing'];

/** @param {string} file @returns {string[] | undefined} the path under src/, split */
function partsOf(file) {
  const rel = path.relative(path.join(import.meta.dirname, 'src'), file);
  return rel.startsWith('..') ? undefined : rel.split(path.sep);
}

/** @type {import('eslint').Rule.RuleModule} */
const layers = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const from = partsOf(context.filename);
    if (from === undefined) return {};
    /** @param {import('estree').Node} node @param {unknown} spec */
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = partsOf(path.resolve(path.dirname(context.filename), spec));
      if (to === undefined) return;
      const [a, b] = [from[0], to[0]];
      // The page inside the webview shares only the panel's and the run's pure parts.
      if (a === 'panel' && from[1] === 'page' && !(b === 'panel' && to[1] !== 'host') && !(to.includes('common') && (b === 'run' || b === 'base'))) {
        context.report({ node, message: `src/panel/page runs in the webview: it may import common/ folders only, not src/${to.join('/')}.` });
      } else if (from.includes('common') && !to.includes('common') && b !== 'api') {
        context.report({ node, message: `common/ is pure: it imports only other common/ folders and api/, not src/${to.join('/')}.` });
      } else if (a === b) {
        return;
      } else if (!FEATURES.includes(a) && !SHARED.includes(a) && !ROOTS.includes(a)) {
        context.report({ node, message: `src/${a} is not a feature or a shared folder in eslint.config.mjs.` });
      } else if (FEATURES.includes(b)) {
        if (!ROOTS.includes(a)) context.report({ node, message: `A feature never imports another feature, nor a shared folder a feature (src/${a} → src/${b}): pass it through deps.` });
      } else if (SHARED.indexOf(b) > SHARED.indexOf(a) && SHARED.includes(a)) {
        context.report({ node, message: `src/${a} may not import src/${b}: shared folders point down (run → connection → api → base).` });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

const globalStateRule = {
  selector: 'MemberExpression[property.name="globalState"]:matches([object.name="context"], [object.property.name="context"])',
  message: 'Use deps.globalState (one write in flight at a time), not context.globalState.',
};
// One sender for every send (src/run/sender.ts, its POSTs in src/run/sendPosts.ts): the exactly-once rules (locks, unconfirmed starts,
// "may have arrived") hold only if no surface calls the client's POST methods itself.
const postFiles = ['src/run/sendPosts.ts', 'src/api/**/*.ts'];
const postRule = {
  selector: 'CallExpression[callee.type="MemberExpression"][callee.property.name=/^(startAgent|sendFollowUp|createTestGroup|startCodeReview|syncVersion|startTestRun|startTestGroupRun|updateTestGroup|deleteTestGroup|runAutomation)$/]:not([callee.object.property.name="sender"]):not([callee.object.name="sender"])',
  message: 'Send through deps.sender (src/run/sender.ts), never the client\'s POST, PUT or DELETE methods directly.',
};

// The edges between features that go through the command registry are typed in one place
// (src/connection/ownCommands.ts): a raw executeCommand('agentRuns.…') is a call lint cannot see.
const ownCommandsRule = {
  selector: 'CallExpression[callee.property.name="executeCommand"][arguments.0.type="Literal"][arguments.0.value=/^agentRuns\\./]',
  message: 'Run the extension\'s own commands through runOwnCommand (src/connection/ownCommands.ts): typed, and checked against package.json.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', '.cache/**', 'test-results/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'eqeqeq': ['error', 'always', { null: 'ignore' }],
    },
  },
  { files: ['src/**/*.ts'], plugins: { local: { rules: { layers } } }, rules: { 'local/layers': 'error' } },
  { files: ['src/api/**/*.ts', 'src/base/common/**/*.ts', 'src/panel/page/**/*.ts'], rules: noVscode },
  // activate() wraps it once (base/common/serialStore.ts): two writes in flight can undo each other.
  { files: ['src/**/*.ts'], ignores: ['src/extension.ts', 'src/connection/ownCommands.ts', ...postFiles], rules: { 'no-restricted-syntax': ['error', globalStateRule, postRule, ownCommandsRule] } },
  { files: ['src/extension.ts'], rules: { 'no-restricted-syntax': ['error', postRule, ownCommandsRule] } },
  { files: postFiles, rules: { 'no-restricted-syntax': ['error', globalStateRule, ownCommandsRule] } },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
