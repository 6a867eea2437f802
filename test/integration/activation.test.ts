// The extension as installed from its .vsix: it is there, it activates, and every command
// its manifest declares is registered. Written from package.json, so it follows the
// manifest: a declared command that activate() forgets to register fails here.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { extensionId, readManifest, type ExtensionManifest } from '../support/paths';
import { readTestContext } from '../support/testContext';

describe('Extension activation', () => {
  const manifest: ExtensionManifest = readManifest();
  const id = extensionId(manifest);
  const context = readTestContext();

  function extension(): vscode.Extension<unknown> {
    const found = vscode.extensions.getExtension(id);
    assert.ok(found, `${id} is not installed in this VS Code`);
    return found;
  }

  it('is installed from the packaged .vsix', function () {
    const ext = extension();
    const installedManifest = ext.packageJSON as ExtensionManifest;
    assert.equal(installedManifest.version, manifest.version, 'the installed version is not the one in package.json');
    if (!context) {
      this.skip();
    }
    // The launcher installed dist/agent-runs.vsix and pointed the extension host at the
    // unpacked copy: the code under test is what a user would install.
    assert.equal(fs.realpathSync(ext.extensionPath), fs.realpathSync(context.installedExtensionPath));
    assert.ok(fs.existsSync(path.join(ext.extensionPath, 'dist', 'extension.js')), 'dist/extension.js is not in the package');
    assert.ok(!fs.existsSync(path.join(ext.extensionPath, 'src')), 'the package contains src/: .vscodeignore lets sources in');
    assert.ok(!fs.existsSync(path.join(ext.extensionPath, 'node_modules')), 'the package contains node_modules/');
  });

  it('activates without error', async () => {
    const ext = extension();
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  // The manifest inside the installed package, which is what VS Code reads.
  const installed = vscode.extensions.getExtension(id)?.packageJSON as ExtensionManifest | undefined;
  const declared = (installed ?? manifest).contributes?.commands ?? [];
  it(`registers every command declared in package.json (${declared.length})`, async () => {
    await extension().activate();
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = declared.map((c) => c.command).filter((command) => !registered.has(command));
    if (missing.length > 0) {
      assert.fail(`declared in contributes.commands but not registered by activate(): ${missing.join(', ')}`);
    }
  });

  it('is configured by the launcher to use the service emulator', function () {
    if (!context) {
      this.skip();
    }
    const baseUrl = vscode.workspace.getConfiguration('agentRuns').get<string>('baseUrl');
    assert.equal(baseUrl, context.emulator.baseUrl);
  });
});
