// @ts-check
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noVscode = {
  'no-restricted-imports': ['error', {
    paths: [{ name: 'vscode', message: 'src/api, src/core and src/panel-app are pure: pass what they need in.' }],
  }],
};

/**
 * The layers of src/, lowest first. A module may import its own folder and the layers below
 * it, never one above; features never import each other: extension.ts wires them together
 * through deps. Code reviews build on the features below them (the start flow is the launch
 * form's steps on a review's fields).
 */
const LAYERS = [['api'], ['core'], ['connection'], ['runs'], ['launch', 'panel', 'testGroups', 'assistant', 'testing', 'automations'], ['reviews', 'serviceTests'], ['extension.ts']];
const rankOf = (top) => LAYERS.findIndex((names) => names.includes(top));

/** @param {string} file @returns {string | undefined} the first folder under src/ (or `extension.ts`) */
function topOf(file) {
  const rel = path.relative(path.join(import.meta.dirname, 'src'), file);
  return rel.startsWith('..') ? undefined : rel.split(path.sep)[0];
}

/** @type {import('eslint').Rule.RuleModule} */
const layers = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const from = topOf(context.filename);
    if (from === undefined) return {};
    /** @param {import('estree').Node} node @param {unknown} spec */
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = topOf(path.resolve(path.dirname(context.filename), spec));
      if (to === undefined || to === from) return;
      // The page inside the webview shares only the pure panel model with the extension side.
      if (from === 'panel-app') {
        if (to !== 'core') context.report({ node, message: `src/panel-app runs in the webview: it may import src/core only, not src/${to}.` });
        return;
      }
      const a = rankOf(from);
      const b = rankOf(to);
      if (a < 0 || b < 0) {
        context.report({ node, message: `src/${to} or src/${from} is not in the layer list of eslint.config.mjs.` });
      } else if (b > a) {
        context.report({ node, message: `src/${from} may not import src/${to}: dependencies point down (features → runs → connection → core → api).` });
      } else if (a === b) {
        context.report({ node, message: `Features do not import each other (src/${from} → src/${to}): pass what is needed through deps in extension.ts.` });
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
// One door per send (src/runs/sendDoor.ts, its POSTs in src/runs/sendPosts.ts): the exactly-once rules (locks, unconfirmed starts,
// "may have arrived") hold only if no surface calls the client's POST methods itself.
const doorFiles = ['src/runs/sendPosts.ts', 'src/api/**/*.ts'];
const doorRule = {
  selector: 'CallExpression[callee.type="MemberExpression"][callee.property.name=/^(startAgent|sendFollowUp|createTestGroup|startCodeReview|syncVersion|startTestRun|startTestGroupRun|updateTestGroup|deleteTestGroup|runAutomation)$/]:not([callee.object.property.name="door"]):not([callee.object.name="door"])',
  message: 'Send through deps.door (src/runs/sendDoor.ts), never the client\'s POST, PUT or DELETE methods directly.',
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
  { files: ['src/api/**/*.ts', 'src/core/**/*.ts', 'src/panel-app/**/*.ts'], rules: noVscode },
  // activate() wraps it once (core/serialStore.ts): two writes in flight can undo each other.
  { files: ['src/**/*.ts'], ignores: ['src/extension.ts', 'src/connection/ownCommands.ts', ...doorFiles], rules: { 'no-restricted-syntax': ['error', globalStateRule, doorRule, ownCommandsRule] } },
  { files: ['src/extension.ts'], rules: { 'no-restricted-syntax': ['error', doorRule, ownCommandsRule] } },
  { files: doorFiles, rules: { 'no-restricted-syntax': ['error', globalStateRule, ownCommandsRule] } },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
