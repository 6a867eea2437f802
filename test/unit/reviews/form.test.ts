// Issue 21: the code review form's own logic (src/reviews/common/): its checks and request, the
// name a review is listed under, its steps walked with the launch form's Navigator, and the
// versions of GET /versions as the form lists them.
import * as assert from 'node:assert/strict';
import type { AppVersion } from '../../../src/api/reviewTypes';
import { plainL10n } from '../../../src/base/common/l10n';
import {
  appChoices, appIdOfArg, applyReviewPreset, buildReviewRequest, emptyReviewForm, hasTypedReview, reviewProblem, reviveReviewForm,
  type ReviewForm,
} from '../../../src/reviews/common/form';
import { reviewNavigator, reviewSteps, type ReviewMainStep } from '../../../src/reviews/common/steps';
import { addVersionPage, versionRow } from '../../../src/run/common/branches/versions';

const filled = (over: Partial<ReviewForm> = {}): ReviewForm => ({ ...emptyReviewForm({ appId: 'app_todo' }), fromBranch: 'main', fromVersion: 'ver_4', toBranch: 'main', toVersion: 'ver_10', ...over });

describe('code review form (issue 21)', () => {
  it('the first problem names the step that fixes it: app, versions (the same twice too), model, webhook, email', () => {
    const step = (f: ReviewForm): string | undefined => reviewProblem(f, plainL10n)?.step;
    assert.equal(reviewProblem(filled(), plainL10n), undefined);
    assert.equal(step(filled({ appId: ' ' })), 'appId');
    assert.equal(step(filled({ fromVersion: '' })), 'fromVersion');
    assert.equal(step(filled({ fromVersion: '', fromBranch: ' ' })), 'fromBranch', 'no source branch: the branch step first');
    assert.equal(step(filled({ toVersion: '', toBranch: '' })), 'toBranch');
    assert.equal(step(filled({ toVersion: 'ver\n10' })), 'toVersion');
    // Two branches compared (version C): a branch label may have spaces.
    assert.equal(step(filled({ fromVersion: 'feature/dark-mode', toVersion: 'Login redirect fix' })), undefined);
    assert.equal(step(filled({ fromVersion: 'main', toVersion: ' main ' })), 'toVersion');
    assert.equal(step(filled({ toVersion: ' ver_4 ' })), 'toVersion');
    assert.match(reviewProblem(filled({ toVersion: 'ver_4', toVersionLabel: 'Main #4' }), plainL10n)?.message ?? '', /same \(Main #4\)/);
    assert.equal(step(filled({ model: 'a b' })), 'model');
    assert.equal(step(filled({ model: '' })), undefined, 'no model: the service\'s default');
    assert.equal(step(filled({ completionWebhookUrl: 'ftp://x' })), 'completionWebhookUrl');
    assert.equal(step(filled({ userEmail: 'nope' })), 'userEmail');
  });

  it('the request carries only what has a value; free text as typed, identifiers trimmed', () => {
    assert.deepEqual(buildReviewRequest(filled({ appId: ' app_todo ', title: ' ', description: '  ', model: '' }), undefined), { appId: 'app_todo', fromVersion: 'ver_4', toVersion: 'ver_10' });
    assert.deepEqual(buildReviewRequest(filled({
      title: ' T ', description: ' why\nand how', focusAreas: 'errors', model: ' hosted/auto ', completionWebhookUrl: ' https://h.example/x ',
    }), ' a@b.example '), {
      appId: 'app_todo', fromVersion: 'ver_4', toVersion: 'ver_10', title: 'T', description: ' why\nand how', focusAreas: 'errors', model: 'hosted/auto',
      completionWebhookUrl: 'https://h.example/x', userEmail: 'a@b.example',
    });
  });

  it('a draft comes back with what was chosen and typed; one with nothing chosen, or not a form, does not', () => {
    const form = filled({ title: 'T', fromVersionLabel: 'Main #4', presetName: 'p' });
    assert.deepEqual(reviveReviewForm(JSON.parse(JSON.stringify(form))), form);
    assert.equal(reviveReviewForm({ appId: 'app_todo', model: 'hosted/auto' }), undefined, 'the defaults alone are not worth restoring');
    assert.equal(reviveReviewForm('x'), undefined);
    assert.deepEqual(reviveReviewForm({ title: 'T', appId: 3 }), { ...emptyReviewForm(), title: 'T' });
    assert.equal(hasTypedReview(filled({ fromVersion: '', toVersion: '', focusAreas: 'x' })), true);
  });

  it('the app of the command\'s argument: { appId }, a Runs view app row (its key), a string; anything else none', () => {
    assert.equal(appIdOfArg({ appId: ' app_todo ' }), 'app_todo');
    class AppNode { readonly kind = 'app'; constructor(private readonly g: { key: string }) {} get key(): string { return this.g.key; } }
    assert.equal(appIdOfArg(new AppNode({ key: 'app_shop' })), 'app_shop');
    assert.equal(appIdOfArg({ group: { key: 'app_x' } }), 'app_x');
    assert.equal(appIdOfArg({ kind: 'app', key: '' }), undefined, 'the "Unknown app" group');
    assert.equal(appIdOfArg({ kind: 'run', key: 'app_todo' }), undefined);
    assert.equal(appIdOfArg('app_y'), 'app_y');
    assert.equal(appIdOfArg(undefined), undefined);
  });

  it('app choices: the form\'s, the configured default, then the apps of listed runs, each once', () => {
    assert.deepEqual(appChoices('', 'app_todo', ['app_shop', '', 'app_todo', 'app_shop', 'app_x']), [
      { appId: 'app_todo', from: 'settings' }, { appId: 'app_shop', from: 'runs' }, { appId: 'app_x', from: 'runs' },
    ]);
    assert.deepEqual(appChoices('app_x', 'app_todo', ['app_x']).map((c) => c.from), ['current', 'settings']);
  });

  it('a launch preset gives its app and model and skips their steps; a model the service dropped is not taken', () => {
    const form = filled({ title: 'kept' });
    const ok = applyReviewPreset(form, { preset: { name: 'P', appId: 'app_shop', model: 'hosted/fast', permission: 'allow_edits' }, status: 'ok' });
    assert.deepEqual([ok.form.appId, ok.form.model, ok.form.title, ok.form.presetName, [...ok.skip]], ['app_shop', 'hosted/fast', 'kept', 'P', ['appId', 'model']]);
    const gone = applyReviewPreset(form, { preset: { name: 'P', model: 'hosted/old' }, status: 'modelUnavailable' });
    assert.deepEqual([gone.form.model, [...gone.skip]], ['', []]);
    const unverified = applyReviewPreset(form, { preset: { name: 'P', model: 'hosted/x' }, status: 'unverified' });
    assert.deepEqual([unverified.form.model, [...unverified.skip]], ['hosted/x', []], 'shown for a look, not skipped');
  });
});

describe('code review form steps (issue 21)', () => {
  const plan = (hasPresets = false, skip: ReviewMainStep[] = []) => () => reviewSteps({ hasPresets, skip: new Set(skip) });

  it('walks app → source branch → source → target branch → target → title → description → focus areas → model → review; the preset step only with presets', () => {
    const nav = reviewNavigator(plan());
    const seen = [nav.current];
    for (let s = nav.next(); s !== undefined; s = nav.next()) seen.push(s);
    assert.deepEqual(seen, ['appId', 'fromBranch', 'fromVersion', 'toBranch', 'toVersion', 'title', 'description', 'focusAreas', 'model', 'review']);
    assert.deepEqual(reviewSteps({ hasPresets: true, skip: new Set(['appId', 'model']) }), ['preset', 'fromBranch', 'fromVersion', 'toBranch', 'toVersion', 'title', 'description', 'focusAreas', 'review']);
  });

  it('opened on an app (its row in the Runs view) at the source branch: Back reaches the app; Back from a step never loses the way', () => {
    const nav = reviewNavigator(plan(), 'fromBranch');
    assert.deepEqual(nav.position(), { step: 2, total: 10 });
    assert.equal(nav.back(), 'appId');
    assert.equal(nav.back(), undefined);
  });

  it('from the review, an option (webhook, email) or a field returns to the review when accepted, and Back goes there too', () => {
    const nav = reviewNavigator(plan(), 'review');
    assert.equal(nav.open('userEmail'), 'userEmail');
    assert.deepEqual(nav.position(), { step: 10, total: 10 }, 'an option counts as the review step');
    assert.equal(nav.next(), 'review');
    nav.open('fromVersion');
    assert.equal(nav.next(), 'review', 'an edited field goes back to the review');
    nav.open('completionWebhookUrl');
    assert.equal(nav.back(), 'review');
    assert.equal(nav.next(), undefined, 'after the review: send');
  });
});

describe('code review versions (issue 21)', () => {
  const v = (id: string, createdAt: number | undefined, stage?: AppVersion['stage'], version = 'main'): AppVersion => ({ versionId: id, createdAt, stage, version, versionDisplay: `${version} ${id}` });

  it('pages add up newest first, each version once, with the cursor of the last page (none after it)', () => {
    const first = addVersionPage(undefined, { versions: [v('b', 20), v('a', 30)], nextCursor: 'c1' });
    assert.deepEqual(first.versions.map((x) => x.versionId), ['a', 'b']);
    assert.equal(first.nextCursor, 'c1');
    const second = addVersionPage(first, { versions: [v('b', 20), v('c', 10), v('x', undefined)] });
    assert.deepEqual(second.versions.map((x) => x.versionId), ['a', 'b', 'c', 'x']);
    assert.equal('nextCursor' in second, false);
  });

  it('how a version reads: name, date and stage (a failure with its reason), last change and id', () => {
    const row = versionRow({ ...v('ver_5', 5, 'failed'), errorMessage: 'export timed out', lastChange: 'Redirect' }, plainL10n, (ms) => `t${ms}`);
    assert.deepEqual(row, { label: 'main ver_5', description: 't5 · failed: export timed out', detail: 'Redirect · ver_5' });
    assert.deepEqual(versionRow({ versionId: 'ver_6' }, plainL10n, String), { label: 'ver_6', description: 'stage unknown', detail: 'ver_6' });
  });
});
