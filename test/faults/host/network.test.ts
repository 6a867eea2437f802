// The editor's network settings as the packaged extension reads them in the real extension
// host: http.proxy, http.proxyAuthorization and http.noProxy set through the configuration
// API (as a person sets them in Settings), in front of Debian's squid with basic
// authentication started on 127.0.0.1. What squid received is checked for the token.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { scenario } from '../registry';
import { startSquid, type Squid } from '../support/squid';
import { checked, Host, waitFor } from './support';

const PROXY_AUTH = 'corp-user:Host-Proxy-Pa55';
const PROXY_AUTHORIZATION = `Basic ${Buffer.from(PROXY_AUTH).toString('base64')}`;

/** The header blocks of the CONNECT requests squid received: all the proxy reads of a tunnel. */
function connectHeads(sq: Squid): string[] {
  return sq.seen().split(/(?=CONNECT )/).filter((h) => h.startsWith('CONNECT ')).map((h) => h.slice(0, h.indexOf('\r\n\r\n')));
}

async function setHttp(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('http').update(key, value, vscode.ConfigurationTarget.Global);
  await waitFor(`http.${key} to apply`, () => JSON.stringify(vscode.workspace.getConfiguration('http').get(key)) === JSON.stringify(value ?? vscode.workspace.getConfiguration('http').inspect(key)?.defaultValue));
}

describe('faults in the extension host: the editor\'s network settings', function () {
  this.timeout(90_000);
  let host: Host;
  let sq: Squid | undefined;

  before(async function () {
    this.timeout(60_000);
    host = await Host.start();
  });

  afterEach(async () => {
    for (const key of ['proxy', 'proxyAuthorization', 'noProxy']) {
      await setHttp(key, undefined);
    }
    await sq?.close();
    sq = undefined;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /**
   * Runs "Track Run" on `id`. A failure is shown as a notification the command waits on: once
   * its text is in the log, the notification is dismissed. Returns what the command returned
   * and the warning it logged.
   */
  async function track(id: string): Promise<{ ok: boolean; said: string }> {
    const since = host.mark();
    let finished = false;
    const command = Promise.resolve(vscode.commands.executeCommand<boolean>('agentRuns.trackRun', id)).finally(() => {
      finished = true;
    });
    const warning = (): string | undefined => host.outputLog().slice(since.output).split('\n').find((l) => /\[warn/.test(l));
    await waitFor('the read to succeed or fail', () => finished || warning() !== undefined);
    const said = warning() ?? '';
    if (!finished) await vscode.commands.executeCommand('notifications.clearAll');
    return { ok: (await command) === true, said };
  }

  scenario('network', 'http.proxy to squid with authentication: 407 names http.proxyAuthorization; with it runs are read inside a CONNECT tunnel; http.noProxy goes direct', (s) => checked(host, s, async () => {
    sq = await startSquid({ auth: PROXY_AUTH });
    const first = await host.startRun('Behind the company proxy');
    const getsOf = async (id: string): Promise<number> => (await host.requests()).filter((r) => r.method === 'GET' && r.path.split('?')[0].endsWith(`/agents/${id}`)).length;

    await setHttp('proxy', sq.url);
    const refused = await track(first);
    assert.equal(refused.ok, false, 'read through a proxy that wants credentials');
    assert.match(refused.said, /\(407\).*http\.proxyAuthorization/);
    assert.equal(await getsOf(first), 0, 'the request reached the service without the proxy\'s consent');

    await setHttp('proxyAuthorization', PROXY_AUTHORIZATION);
    const read = await track(first);
    assert.ok(read.ok, read.said);
    assert.ok(await getsOf(first) >= 1);
    const heads = connectHeads(sq);
    assert.ok(heads.some((h) => h.toLowerCase().includes(`proxy-authorization: ${PROXY_AUTHORIZATION.toLowerCase()}`)), heads.join('\n---\n'));
    s.sink('CONNECT requests squid read', heads.join('\n'));
    s.note(`squid: ${heads.length} CONNECT request(s); access log: ${sq.accessLog().map((l) => l.split(/\s+/).slice(3, 7).join(' ')).join(' | ')}`);

    // Stop following the first run, so nothing of it is in flight when the route changes.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentRuns.removeRun', first);
    await waitFor('the first run no longer followed', () => !host.api.poller.isTracked(first));
    await setHttp('noProxy', ['127.0.0.1']);
    const seenBefore = sq.seen().length;
    const second = await host.startRun('Excluded from the proxy');
    const direct = await track(second);
    assert.ok(direct.ok, direct.said);
    assert.ok(await getsOf(second) >= 1);
    assert.equal(sq.seen().length, seenBefore, 'a request to a host in http.noProxy went to the proxy');
    await vscode.commands.executeCommand('agentRuns.removeRun', second);
  }));
});
