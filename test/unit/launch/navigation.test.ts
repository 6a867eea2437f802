import * as assert from 'node:assert/strict';
import { launchNavigator, mainSteps, type MainStep } from '../../../src/launch/common/navigation';

describe('launch navigation', () => {
  const plain = (): MainStep[] => mainSteps({ hasPresets: false, skip: new Set() });

  it('walks app → prompt → model → review with a step counter', () => {
    const nav = launchNavigator(plain);
    assert.equal(nav.current, 'appId');
    assert.deepEqual(nav.position(), { step: 1, total: 4 });
    assert.equal(nav.canGoBack, false);
    assert.equal(nav.next(), 'prompt');
    assert.equal(nav.next(), 'model');
    assert.equal(nav.next(), 'review');
    assert.deepEqual(nav.position(), { step: 4, total: 4 });
    assert.equal(nav.next(), undefined, 'after the review the run is started');
  });

  it('goes back step by step', () => {
    const nav = launchNavigator(plain);
    nav.next();
    nav.next();
    assert.equal(nav.back(), 'prompt');
    assert.equal(nav.back(), 'appId');
    assert.equal(nav.back(), undefined);
    assert.equal(nav.current, 'appId');
  });

  it('returns to the review after an option step, and Back from it too', () => {
    const nav = launchNavigator(plain, 'review');
    assert.equal(nav.open('permission'), 'permission');
    assert.deepEqual(nav.position(), { step: 4, total: 4 });
    assert.equal(nav.next(), 'review');
    nav.open('reasoningEffort');
    assert.equal(nav.back(), 'review');
    // A main step opened from the review also comes back to it.
    nav.open('appId');
    assert.equal(nav.next(), 'review');
    assert.equal(nav.back(), 'model', 'the edited step is not in the Back history twice');
    assert.equal(nav.back(), 'prompt');
  });

  it('opens in the middle with the earlier steps as Back history (Edit, Choose Another Model)', () => {
    const nav = launchNavigator(plain, 'model');
    assert.deepEqual(nav.position(), { step: 3, total: 4 });
    assert.equal(nav.back(), 'prompt');
    assert.equal(nav.back(), 'appId');
    const email = launchNavigator(plain, 'userEmail');
    assert.equal(email.next(), 'review');
    assert.equal(email.back(), 'model');
  });

  it('skips what a preset answered, re-planning after the preset step', () => {
    const skip = new Set<MainStep>();
    const nav = launchNavigator(() => mainSteps({ hasPresets: true, skip }));
    assert.equal(nav.current, 'preset');
    assert.deepEqual(nav.position(), { step: 1, total: 5 });
    skip.add('appId');
    skip.add('model');
    assert.equal(nav.next(), 'prompt');
    assert.deepEqual(nav.position(), { step: 2, total: 3 });
    assert.equal(nav.next(), 'review');
    assert.equal(nav.back(), 'prompt');
    assert.equal(nav.back(), 'preset');
    skip.clear();
    assert.equal(nav.next(), 'appId');
  });
});
