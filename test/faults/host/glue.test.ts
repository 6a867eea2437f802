// Fault scenarios in the extension host: the packaged extension's own glue (RunSync, the
// UnauthorizedGate, the ledgers, the transcript cache, the panel) against the emulator over
// real HTTP, in real time, with the output channel at trace level. Watched through the test
// API activate() returns (never the token) and the profile's files.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { scenario } from '../registry';
import { checked, Host, waitFor } from './support';

/** Observes that something does NOT happen for `ms` (a negative can only be watched for a while). */
function observe(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function count(text: string, needle: RegExp): number {
  return text.split('\n').filter((l) => needle.test(l)).length;
}

describe('faults in the extension host (real glue, real HTTP, trace logging)', function () {
  this.timeout(90_000);
  let host: Host;

  before(async function () {
    this.timeout(60_000);
    host = await Host.start();
  });

  afterEach(async () => {
    await host?.clearFaults().catch(() => undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** A run started elsewhere, held running, tracked through the command (which opens its panel). */
  async function followed(prompt: string): Promise<string> {
    const id = await host.startRun(prompt);
    // Let it produce a few messages first (30 ms steps), then hold it there.
    await waitFor('the run to have messages', async () => {
      const agent = (await host.admin('GET', `/agents/${encodeURIComponent(id)}`)) as { history: unknown[] };
      return agent.history.length >= 3;
    });
    // On a loaded machine the run can finish before the hold; without its completedAt it is
    // running again, not a finished run whose later unknown status would count as finished.
    await host.hold(id, { status: 'running', completedAt: null });
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', id), true);
    await waitFor('the run in the ledger', () => host.api.ledger().get(id)?.status === 'running');
    return id;
  }

  async function forget(...ids: string[]): Promise<void> {
    for (const id of ids) {
      await vscode.commands.executeCommand('agentRuns.removeRun', id);
    }
  }

  scenario('responses', 'unknown status, kind, roles, wrong types and hostile strings go through the glue, tree and panel without an error', (s) => checked(host, s, async () => {
    const id = await followed('Weird values');
    await host.fault({
      method: 'GET', path: `^/agents/${id}$`, times: 0,
      extraFields: {
        status: 'paused_by_admin', kind: 'code_review_v9', projectName: '<img src=x onerror=alert(1)>\u202Eevil', createdAt: 'yesterday',
        lifecycle: { conversationState: 'meditating', sandboxState: 42, queuedTurnCount: 1e300 },
        history: [
          { id: 'w1', sequence: 1, role: 'narrator', content: '<script>alert(1)</script>' },
          { id: '\u0000<b>', sequence: 1e300, role: '', content: 'odd' },
          'not a message', null,
        ],
      },
    });
    await waitFor('the unknown status', () => host.api.ledger().get(id)?.status === 'paused_by_admin');
    assert.equal(host.api.poller.isTracked(id), true, 'an unknown status stopped polling');
    assert.equal(host.api.ledger().get(id)?.pollError, undefined);
    await vscode.commands.executeCommand('agentRuns.openRun', id);
    await vscode.commands.executeCommand('workbench.view.extension.agentRuns');
    // The run then ends in error with a hostile lastError: one notification, no crash.
    const shown = host.api.notificationsFor(id);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await host.clearFaults();
    await host.hold(id, { status: 'error', lastError: '<svg onload=alert(1)>\u202E\u0007 failed' });
    await waitFor('the error status', () => host.api.ledger().get(id)?.status === 'error');
    await waitFor('one notification', () => host.api.notificationsFor(id) === shown + 1);
    await forget(id);
  }));

  scenario('outage', 'the service stops answering while a run is followed: offline reported once, back on its own, told once', (s) => checked(host, s, async () => {
    const id = await followed('Outage');
    await vscode.commands.executeCommand('agentRuns.openRun', id);
    const before = host.outputLog();
    await host.fault({ method: 'GET', path: '^/agents/', reset: true, times: 0 });
    await waitFor('the offline state', () => !host.api.connection().online, 45_000);
    assert.equal(host.api.ledger().get(id)?.status, 'running', 'the last known state was lost');
    assert.ok(host.api.ledger().get(id)?.pollError, 'the run was not marked stale');
    await host.clearFaults();
    // No refresh, no click: the poller finds the service again on its own.
    await waitFor('the service to be reachable again', () => host.api.connection().online, 60_000);
    await waitFor('the stale mark to clear', () => host.api.ledger().get(id)?.pollError === undefined, 20_000);
    const log = host.outputLog().slice(before.length);
    // The glue's own report (a warning, next to the one notification per spell of trouble).
    assert.equal(count(log, /\[warning\] The service looks unreachable/), 1, 'offline must be reported once, not per poll');
    assert.equal(count(log, /\[warning\] The service is reachable again/), 1);
    await forget(id);
  }));

  scenario('outage', 'switching to another base URL while the old service is unreachable does not carry "cannot be reached" over to the new one', (s) => checked(host, s, async () => {
    const id = await followed('Offline, then another service');
    await vscode.commands.executeCommand('agentRuns.openRun', id);
    await host.fault({ method: 'GET', path: '^/agents/', reset: true, times: 0 });
    await waitFor('the offline state', () => !host.api.connection().online, 45_000);
    const config = vscode.workspace.getConfiguration('agentRuns');
    const other = host.baseUrl.replace('127.0.0.1', 'localhost');
    try {
      await config.update('baseUrl', other, vscode.ConfigurationTarget.Global);
      await waitFor('the new base URL', () => host.api.connection().baseUrl === other);
      // Nothing is known yet about the new service (no token, no request): it must not be shown
      // as unreachable because the old one was (the view would say "cannot be reached" instead
      // of asking for a token).
      await waitFor('the connectivity of the new service to be unknown/online', () => host.api.connection().online, 5_000)
        .catch(() => assert.fail('BUG (glue): the old service\'s offline state is still reported for the new base URL (src/run/runSync.ts / src/extension.ts keep it across base URL changes)'));
    } finally {
      await config.update('baseUrl', host.baseUrl, vscode.ConfigurationTarget.Global);
      await host.clearFaults();
      await waitFor('back on the first service', () => host.api.connection().baseUrl === host.baseUrl && host.api.connection().signedIn);
      await vscode.commands.executeCommand('agentRuns.refresh');
      await waitFor('reachable again', () => host.api.connection().online, 30_000);
      await forget(id);
    }
  }));

  scenario('rate-limit', '429 with Retry-After: 6 while two runs are followed: nothing is sent for 6 s, then one at a time', (s) => checked(host, s, async () => {
    const a = await followed('Limited one');
    const b = await followed('Limited two');
    await vscode.commands.executeCommand('agentRuns.openRun', a);
    const from = await host.requestCount();
    // Longer than both cadences (1 s panel, 5 s background): both runs fall due during the hold,
    // and the poller must let them out one at a time afterwards instead of together.
    await host.fault({ method: 'GET', path: '^/agents/', status: 429, headers: { 'retry-after': '6' }, times: 1 });
    const limited = await waitFor('the 429', async () => (await host.requests(from)).find((r) => r.status === 429));
    await waitFor('reads after the hold', async () => (await host.requests(from)).filter((r) => r.method === 'GET' && r.at > limited.at).length >= 2, 30_000);
    const after = (await host.requests(from)).filter((r) => r.method === 'GET' && r.at > limited.at).map((r) => r.at);
    s.note(`first read ${after[0] - limited.at} ms after a "Retry-After: 6", the next ${after[1] - after[0]} ms later`);
    assert.ok(after[0] - limited.at >= 6_000, `read again after ${after[0] - limited.at} ms`);
    // The poller lets waiting runs out 1 s apart; arrival times at the service jitter a little,
    // so "not a burst" is checked with room to spare (a burst would be a few ms apart).
    assert.ok(after[1] - after[0] >= 500, `a burst after the hold: ${after[1] - after[0]} ms between reads`);
    await forget(a, b);
  }));

  scenario('auth', 'a token revoked while two runs are followed: one prompt, polling paused, a new token resumes it', (s) => checked(host, s, async () => {
    const fresh = await host.newToken();
    await host.setToken(fresh.token);
    await waitFor('polling with the new token', () => !host.api.poller.paused);
    const a = await followed('Revoked one');
    const b = await followed('Revoked two');
    await vscode.commands.executeCommand('agentRuns.openRun', a);
    const prompts = host.api.unauthorizedPrompts;
    await host.admin('POST', `/tokens/${fresh.id}/revoke`);
    await waitFor('polling to pause', () => host.api.poller.paused && host.api.connection().tokenRejected, 30_000);
    const quietFrom = await host.requestCount();
    await observe(3_000);
    assert.equal(host.api.unauthorizedPrompts, prompts + 1, 'one prompt, not one per run');
    assert.deepEqual((await host.requests(quietFrom)).filter((r) => r.method === 'GET').map((r) => r.path), [], 'reads went on after the 401');
    assert.ok(host.api.poller.isTracked(a) && host.api.poller.isTracked(b), 'runs were dropped instead of paused');
    await host.setToken(host.tokens.default);
    await waitFor('polling to resume', () => !host.api.poller.paused && !host.api.connection().tokenRejected);
    await waitFor('a good read', async () => (await host.requests(quietFrom)).some((r) => r.method === 'GET' && r.status === 200), 20_000);
    assert.equal(host.api.unauthorizedPrompts, prompts + 1);
    await forget(a, b);
  }));

  scenario('persistence', 'ledger and transcripts come back from storage after the base URL changes away and back; a corrupt transcript file is ignored with a warning', (s) => checked(host, s, async () => {
    const id = await followed('Persist me');
    await waitFor('transcript messages', () => (host.api.ledger().get(id)?.messageCount ?? 0) > 0, 20_000);
    await host.api.flush();
    const dir = path.join(host.userDataDir, 'User', 'globalStorage', host.context.extensionId.toLowerCase(), 'transcripts');
    const files = fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.jsonl?$/.test(f)) : [];
    assert.ok(files.length > 0, `no saved transcripts under ${dir}`);
    for (const f of files) {
      fs.writeFileSync(path.join(dir, f), '{"version":1,"agentId":');
    }
    const config = vscode.workspace.getConfiguration('agentRuns');
    const other = host.baseUrl.replace('127.0.0.1', 'localhost');
    await config.update('baseUrl', other, vscode.ConfigurationTarget.Global);
    await waitFor('the other ledger', () => host.api.connection().baseUrl === other && !host.api.ledger().has(id));
    await config.update('baseUrl', host.baseUrl, vscode.ConfigurationTarget.Global);
    await waitFor('the run back from storage', () => host.api.connection().baseUrl === host.baseUrl && host.api.ledger().get(id)?.prompt === 'Persist me');
    await waitFor('signed in again', () => host.api.connection().signedIn && !host.api.poller.paused);
    await vscode.commands.executeCommand('agentRuns.openRun', id);
    await waitFor('the corrupt transcript to be reported', () => /saved transcript was unreadable/.test(host.outputLog()), 20_000);
    await waitFor('the run read again', () => host.api.ledger().get(id)?.pollError === undefined && (host.api.ledger().get(id)?.lastCheckedAt ?? 0) > Date.now() - 30_000);
    await forget(id);
  }));

  scenario('secrets', 'a redirect of a followed run to another origin: not followed, nothing reaches the other origin, said plainly', (s) => checked(host, s, async () => {
    const id = await followed('Redirected');
    await vscode.commands.executeCommand('agentRuns.openRun', id);
    await host.fault({ method: 'GET', path: `^/agents/${id}$`, redirectTo: 'foreign', redirectStatus: 307, times: 0 });
    await waitFor('the stale mark', () => /redirected to another site/.test(host.api.ledger().get(id)?.pollError ?? ''), 30_000);
    const all = await host.requests(0);
    const foreign = all.filter((r) => r.origin !== host.context.emulator.origin);
    s.sink('requests to another origin', JSON.stringify(foreign));
    assert.deepEqual(foreign.map((r) => `${r.method} ${r.origin}${r.path}`), []);
    await forget(id);
  }));

  scenario('secrets', 'a token held for another base URL is redacted too when this service echoes it: the run\'s error, the output channel', (s) => checked(host, s, async () => {
    // A person who used another service first holds its token too (a name that is loopback, so
    // no plain-http warning, and a port nothing listens on, so nothing is read there).
    const elsewhere = `http://held-elsewhere.localhost:9${new URL(host.baseUrl).pathname}`;
    const other = await host.newToken(elsewhere);
    const config = vscode.workspace.getConfiguration('agentRuns');
    try {
      await config.update('baseUrl', elsewhere, vscode.ConfigurationTarget.Global);
      await waitFor('the other base URL', () => host.api.connection().baseUrl === elsewhere);
      await host.setToken(other.token);
    } finally {
      await config.update('baseUrl', host.baseUrl, vscode.ConfigurationTarget.Global);
      await waitFor('back on the emulator, signed in', () => host.api.connection().baseUrl === host.baseUrl && host.api.connection().signedIn);
    }
    const id = await followed('Echoes another token');
    await host.fault({ method: 'GET', path: `^/agents/${id}$`, status: 500, body: JSON.stringify({ error: `internal error for ${other.token}` }), times: 0 });
    const pollError = await waitFor('the failed read', () => host.api.ledger().get(id)?.pollError, 30_000);
    s.sink('the run\'s error (tree tooltip, panel banner)', pollError);
    assert.match(pollError, /internal error for \[redacted\]/, 'the service\'s words are shown, the token in them redacted');
    s.note(`the run's error: ${pollError.slice(0, 120)}`);
    await host.clearFaults();
    await forget(id);
  }));

  scenario('secrets', 'the token is in no file of the profile (settings, storage, transcript caches, logs at trace level)', (s) => checked(host, s, async () => {
    await host.api.flush();
    const files = host.userDataFiles();
    assert.ok(files.some((f) => /settings\.json$/.test(f.file)), 'settings.json not found');
    assert.ok(files.some((f) => /Agent Runs\.log$/.test(f.file)), 'the output channel log not found');
    assert.match(host.outputLog(), /\[(?:trace|debug)\]/, 'the output channel is not at trace/debug level');
    s.note(`${files.length} files searched under the user-data folder`);
    for (const f of files) {
      s.sink(`profile file ${f.file}`, f.text);
    }
    // Only the service itself may ever have received the token.
    const requests = await host.requests(0);
    s.sink('requests to any other origin', JSON.stringify(requests.filter((r) => r.origin !== host.context.emulator.origin)));
  }));
});
