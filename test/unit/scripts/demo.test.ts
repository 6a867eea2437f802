// What the demo's console says about the apps it serves (scripts/demo.ts): every project of the
// signed-in workspace with its App ID and project name, the configured default and the
// unverified one marked, so a newcomer knows what to type at the App ID step.
import * as assert from 'node:assert/strict';
import { defaultSeed, SEED } from '../../emulator/index';
import { describeApps } from '../../../scripts/demo';

describe('demo: the apps it names', () => {
  it('lists the main workspace\'s projects, App ID then project name, the default and the unverified one marked', () => {
    const workspace = defaultSeed().workspaces.find((w) => w.id === SEED.workspaces.main);
    assert.ok(workspace);
    assert.deepEqual(describeApps(workspace, SEED.apps.todo), [
      '  app_todo   Todo App (the default App ID)',
      '  app_shop   Shop Frontend',
      '  app_crm    CRM Portal',
      '  app_draft  Draft Prototype (not verified: the service refuses runs on it)',
    ]);
  });
});
