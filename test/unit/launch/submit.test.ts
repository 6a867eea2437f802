import * as assert from 'node:assert/strict';
import { ApiError, type ApiErrorKind } from '../../../src/api/errors';
import type { AgentStarted, StartAgentRequest } from '../../../src/api/types';
import type { ExternalAction, FailureActionId, StartFailure } from '../../../src/run/common/startFailure';
import { emptyForm, type LaunchForm } from '../../../src/launch/common/form';
import { submitLaunch, type SubmitEnv, type SubmitUi } from '../../../src/launch/common/submit';
import { plainL10n } from '../../../src/base/common/l10n';

const TOKEN = 'agr_0eLHBOQeMA1jI0mzMKfxoWdj63aQfrjwcdipZSPp';

function apiError(kind: ApiErrorKind, status?: number, mayHaveReachedServer = true): ApiError {
  return new ApiError({ kind, status, message: `${kind}.`, mayHaveReachedServer });
}

const RUN: AgentStarted = { agentId: 'ag_1', status: 'queued', appId: 'app_todo', projectId: 'prj_1', createdAt: 1 };

class Fake implements SubmitEnv, SubmitUi {
  l10n = plainL10n;
  sent: StartAgentRequest[] = [];
  failures: StartFailure[] = [];
  commands: ExternalAction[] = [];
  emailPrompts: string[] = [];
  learned = new Set<string>();
  /** What each start does, in order; a run or an error. */
  results: Array<AgentStarted | Error> = [];
  /** What the person clicks on each failure, in order. */
  clicks: Array<FailureActionId | undefined> = [];
  /** What the person types when asked for an email, in order. */
  emails: Array<string | undefined> = [];
  confirmEdits = true;
  gitEmail: string | undefined = 'git@example.com';

  validate(r: StartAgentRequest): StartAgentRequest {
    if (r.prompt.trim() === '') throw new ApiError({ kind: 'invalid_input', message: 'prompt is empty.', mayHaveReachedServer: false });
    return r;
  }
  start(r: StartAgentRequest): Promise<AgentStarted> {
    this.sent.push(r);
    const next = this.results.shift();
    if (next === undefined) return Promise.reject(new Error('unexpected start'));
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  }
  modelNeedsEmail(m: string): boolean { return this.learned.has(m); }
  rememberModelNeedsEmail(m: string): Promise<void> { this.learned.add(m); return Promise.resolve(); }
  defaultEmail(): Promise<string | undefined> { return Promise.resolve(this.gitEmail); }
  secrets(): Promise<readonly string[]> { return Promise.resolve([TOKEN]); }
  confirmAllowEdits(_f: LaunchForm): Promise<boolean> { return Promise.resolve(this.confirmEdits); }
  askEmail(prefill: string): Promise<string | undefined> { this.emailPrompts.push(prefill); return Promise.resolve(this.emails.shift()); }
  showFailure(f: StartFailure): Promise<FailureActionId | undefined> { this.failures.push(f); return Promise.resolve(this.clicks.shift()); }
  runCommand(a: ExternalAction): Promise<void> { this.commands.push(a); return Promise.resolve(); }
}

const form = (over: Partial<LaunchForm> = {}): LaunchForm => ({ ...emptyForm({ appId: 'app_todo', model: 'hosted/auto' }), prompt: 'Fix the login bug\nand add a test', ...over });

describe('launch submit', () => {
  it('starts once and returns the run', async () => {
    const f = new Fake();
    f.results = [RUN];
    const out = await submitLaunch(form(), f, f);
    assert.equal(out.kind, 'started');
    assert.equal(f.sent.length, 1);
    assert.equal(f.sent[0].userEmail, undefined, 'no email for a model not known to need one');
  });

  it('a timeout is never retried on its own: it offers Track and keeps the form when dismissed', async () => {
    const f = new Fake();
    f.results = [apiError('timeout')];
    f.clicks = [undefined];
    const out = await submitLaunch(form(), f, f);
    assert.equal(f.sent.length, 1);
    assert.equal(f.failures[0].mayExist, true);
    assert.ok(f.failures[0].actions.some((a) => a.id === 'trackRun'));
    assert.equal(out.kind, 'stopped');
    assert.equal(out.form.prompt, 'Fix the login bug\nand add a test');
  });

  it('Track Run by ID runs the command and sends nothing more', async () => {
    const f = new Fake();
    f.results = [apiError('network', undefined, true)];
    f.clicks = ['trackRun'];
    const out = await submitLaunch(form(), f, f);
    assert.deepEqual(f.commands, ['trackRun']);
    assert.equal(f.sent.length, 1);
    assert.deepEqual([out.kind, out.kind === 'stopped' ? out.reason : ''], ['stopped', 'tracked']);
  });

  it('Retry sends the same request again, only when clicked', async () => {
    const f = new Fake();
    f.results = [apiError('server', 503), RUN];
    f.clicks = ['retry'];
    const out = await submitLaunch(form(), f, f);
    assert.equal(out.kind, 'started');
    assert.equal(f.sent.length, 2);
    assert.deepEqual(f.sent[0], f.sent[1]);
  });

  it('Edit and Choose Another Model re-open the form with everything kept', async () => {
    const f = new Fake();
    f.results = [apiError('insufficient_credits', 402)];
    f.clicks = ['chooseModel'];
    const original = form({ permittedBranches: ['main'], completionWebhookUrl: 'https://h.example/x' });
    const out = await submitLaunch(original, f, f);
    assert.equal(out.kind, 'edit');
    assert.equal(out.kind === 'edit' ? out.step : '', 'model');
    assert.deepEqual(out.form, original);
    const g = new Fake();
    g.results = [apiError('plan_required', 402)];
    g.clicks = ['edit'];
    const out2 = await submitLaunch(original, g, g);
    assert.deepEqual([out2.kind, out2.kind === 'edit' ? out2.step : ''], ['edit', 'review']);
  });

  it('user_email_required: asks once (prefilled from settings/git), resends with the same inputs, and remembers the model', async () => {
    const f = new Fake();
    f.results = [apiError('user_email_required', 400), RUN];
    f.emails = ['dev@example.com'];
    const out = await submitLaunch(form({ model: 'openai/gpt-5' }), f, f);
    assert.equal(out.kind, 'started');
    assert.deepEqual(f.emailPrompts, ['git@example.com']);
    assert.equal(f.sent.length, 2);
    assert.equal(f.sent[0].userEmail, undefined);
    assert.deepEqual({ ...f.sent[1], userEmail: undefined }, { ...f.sent[0], userEmail: undefined });
    assert.equal(f.sent[1].userEmail, 'dev@example.com');
    assert.ok(f.learned.has('openai/gpt-5'));
    assert.equal(out.kind === 'started' ? out.form.userEmail : '', 'dev@example.com');
  });

  it('a model known to need an email gets the configured/git email without asking', async () => {
    const f = new Fake();
    f.learned.add('openai/gpt-5');
    f.results = [RUN];
    await submitLaunch(form({ model: 'openai/gpt-5' }), f, f);
    assert.equal(f.sent[0].userEmail, 'git@example.com');
    assert.deepEqual(f.emailPrompts, []);
  });

  it('does not ask for the email twice; a declined ask shows the message with the form kept', async () => {
    const f = new Fake();
    f.results = [apiError('user_email_required', 400)];
    f.emails = [undefined];
    f.clicks = [undefined];
    const out = await submitLaunch(form({ model: 'openai/gpt-5' }), f, f);
    assert.equal(f.sent.length, 1);
    assert.equal(f.emailPrompts.length, 1);
    assert.equal(f.failures.length, 1);
    assert.equal(out.kind, 'stopped');
    const g = new Fake();
    g.results = [apiError('user_email_required', 400), apiError('user_email_required', 400)];
    g.emails = ['a@example.com'];
    g.clicks = [undefined];
    await submitLaunch(form({ model: 'openai/gpt-5' }), g, g);
    assert.equal(g.emailPrompts.length, 1, 'asked once');
    assert.equal(g.sent.length, 2);
  });

  it('403 not a member: Enter Email… asks and resends with the new email', async () => {
    const f = new Fake();
    f.results = [apiError('user_not_workspace_member', 403), RUN];
    f.clicks = ['changeEmail'];
    f.emails = ['dev@example.com'];
    const out = await submitLaunch(form({ model: 'openai/gpt-5', userEmail: 'stranger@example.org' }), f, f);
    assert.match(f.failures[0].message, /stranger@example\.org/);
    assert.deepEqual(f.emailPrompts, ['stranger@example.org']);
    assert.equal(f.sent[1].userEmail, 'dev@example.com');
    assert.equal(out.kind, 'started');
  });

  it('401: Set API Token runs the command, then asks before sending again', async () => {
    const f = new Fake();
    f.results = [apiError('unauthorized', 401), RUN];
    f.clicks = ['setToken', 'retry'];
    const out = await submitLaunch(form(), f, f);
    assert.deepEqual(f.commands, ['setToken']);
    assert.match(f.failures[1].message, /Start the agent run now/);
    assert.equal(f.sent.length, 2);
    assert.equal(out.kind, 'started');
    const g = new Fake();
    g.results = [apiError('unauthorized', 401)];
    g.clicks = ['setToken', undefined];
    const out2 = await submitLaunch(form(), g, g);
    assert.equal(g.sent.length, 1, 'setting the token alone never resends');
    assert.equal(out2.kind, 'stopped');
  });

  it('Show Logs keeps the failure message up', async () => {
    const f = new Fake();
    f.results = [apiError('server', 500)];
    f.clicks = ['showLogs', 'edit'];
    const out = await submitLaunch(form(), f, f);
    assert.equal(f.failures.length, 2);
    assert.equal(f.failures[0], f.failures[1]);
    assert.equal(out.kind, 'edit');
  });

  it('allow_edits needs the confirmation; declining returns to the form without sending', async () => {
    const f = new Fake();
    f.confirmEdits = false;
    const out = await submitLaunch(form({ permission: 'allow_edits' }), f, f);
    assert.equal(out.kind, 'edit');
    assert.equal(f.sent.length, 0);
  });

  it('a request refused locally is not sent and offers Edit', async () => {
    const f = new Fake();
    f.clicks = ['edit'];
    const out = await submitLaunch(form({ prompt: '  ' }), f, f);
    assert.equal(f.sent.length, 0);
    assert.deepEqual(f.failures[0].actions.map((a) => a.id), ['edit']);
    assert.equal(out.kind, 'edit');
  });
});
