// The App IDs the launch form's first step offers, in order, each once, with its project name.
import * as assert from 'node:assert/strict';
import { appIdOffers, recentAppsKey } from '../../../src/launch/common/appOffers';

describe('launch App ID offers', () => {
  it('offers nothing when nothing is known', () => {
    assert.deepEqual(appIdOffers({ current: '', configured: '  ', recent: [], runs: [] }), []);
  });

  it('orders the form\'s value, the setting, recent IDs, then apps of runs newest first; each ID once with all its reasons', () => {
    const offers = appIdOffers({
      current: '',
      configured: 'app_todo',
      recent: ['app_shop', 'app_todo'],
      runs: [
        { appId: 'app_crm', time: 1 },
        { appId: 'app_new', time: 5 },
        { appId: 'app_shop', time: 3 },
      ],
    });
    assert.deepEqual(offers.map((o) => [o.appId, o.sources.join(','), o.runs]), [
      ['app_todo', 'settings,recent', 0],
      ['app_shop', 'recent,runs', 1],
      ['app_new', 'runs', 1],
      ['app_crm', 'runs', 1],
    ]);
  });

  it('puts the form\'s own value first (Back, a restored draft, Clone)', () => {
    const offers = appIdOffers({ current: ' app_crm ', configured: 'app_todo', recent: [], runs: [] });
    assert.deepEqual(offers.map((o) => o.appId), ['app_crm', 'app_todo']);
    assert.deepEqual(offers[0].sources, ['current']);
  });

  it('names each app after the newest run that gave its project name, made plain; none when no run did', () => {
    const offers = appIdOffers({
      current: '',
      configured: 'app_todo',
      recent: ['app_shop'],
      runs: [
        { appId: 'app_todo', projectName: 'Todo (old name)', time: 1 },
        { appId: 'app_todo', time: 9 },
        { appId: 'app_todo', projectName: 'Todo\u202e App\n', time: 5 },
      ],
    });
    assert.equal(offers.find((o) => o.appId === 'app_todo')?.projectName, 'Todo App');
    assert.equal(offers.find((o) => o.appId === 'app_todo')?.runs, 3);
    assert.equal(offers.find((o) => o.appId === 'app_shop')?.projectName, undefined);
  });

  it('skips IDs that could not be typed (spaces, control characters, empty)', () => {
    const offers = appIdOffers({
      current: 'two words',
      configured: '',
      recent: ['ok_app', ''],
      runs: [{ appId: 'bad\u0007', time: 1 }, { appId: undefined, time: 2 }, { appId: 'app\u202ex', time: 3 }],
    });
    assert.deepEqual(offers.map((o) => o.appId), ['ok_app']);
  });

  it('keeps recent IDs per service', () => {
    assert.notEqual(recentAppsKey('https://a.example'), recentAppsKey('https://b.example'));
  });
});
