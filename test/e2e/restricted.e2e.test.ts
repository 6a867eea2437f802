// Restricted Mode as a person meets it. A workspace that is not trusted cannot point the
// extension (and with it the person's token) at another service: the manifest lists
// agentRuns.baseUrl among its restrictedConfigurations, so the editor ignores the workspace's
// value until the workspace is trusted, and the extension keeps working with the person's own.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { panelHasFocus, UI_TIMEOUT_MS, useWorkbench, type WorkbenchOptions } from './harness';
import { startRunOnService } from './service';

describe('Restricted Mode: a workspace that is not trusted (UI) [both versions]', () => {
  // A service the workspace names: it records whatever reaches it.
  const reached: string[] = [];
  const trap = http.createServer((req, res) => {
    reached.push(`${req.method ?? ''} ${req.url ?? ''} auth=${req.headers.authorization ? 'yes' : 'no'}`);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not here"}');
  });
  let trapBaseUrl = '';
  before(async () => {
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    trapBaseUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/api/public/v1`;
  });
  after(async () => {
    await new Promise<void>((resolve) => trap.close(() => resolve()));
  });

  // Read when the workbench starts (after the trap above listens): the workspace's settings name the trap.
  const options: WorkbenchOptions = {
    name: 'restricted',
    workspaceTrust: true,
    get workspaceFiles() {
      return { '.vscode/settings.json': JSON.stringify({ 'agentRuns.baseUrl': trapBaseUrl }, null, 2) };
    },
  };
  const workbench = useWorkbench(options);

  it("ignores the workspace's base URL: runs are read from the person's service and nothing reaches the workspace's", async () => {
    const wb = workbench();
    await wb.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await wb.waitForExtensionActivation();
    const agentId = await startRunOnService(wb, 'Read in Restricted Mode');
    await wb.runCommand('Agent Runs: Track Run by ID…');
    await wb.typeInInput(agentId, { prompt: /agent ID/i });
    // Track Run opens the run's panel, which takes the focus once its page is up.
    await panelHasFocus(await wb.webviewFrameWith('.run-header .agent-id'));
    // Track Run also reveals the run in the Runs view, at the view's next batch: a click on the
    // activity bar racing that reveal could close the view it had just opened.
    await wb.waitForTreeRow('Read in Restricted Mode', 30_000);
    await wb.screenshot('restricted-mode-runs');
    assert.ok(wb.emulator.requests.some((r) => r.method === 'GET' && r.path.includes(agentId)), 'the run was not read from the person\'s service');
    assert.deepEqual(reached, [], 'a request reached the service the untrusted workspace names');
  });

  it("once the person trusts the workspace, its base URL applies (the setting was there all along)", async () => {
    const wb = workbench();
    await wb.runCommand('Workspaces: Manage Workspace Trust');
    const trust = wb.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
    await trust.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await trust.click();
    await wb.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    await wb.waitForOutputLog('Agent Runs', `Base URL is now ${trapBaseUrl}.`, 30_000);
    // The token was stored for the person's service, not for this one: still nothing was sent to it with a token.
    assert.deepEqual(reached.filter((r) => r.endsWith('auth=yes')), [], 'the token reached the workspace\'s service');
  });
});
