// The lazy loader of dist/'s bundles (src/base/common/lazyBundle.ts): nothing before the first call, one load after.
import * as assert from 'node:assert/strict';
import { lazyBundle } from '../../../src/base/common/lazyBundle';

describe('lazyBundle', () => {
  it('loads on the first call only, and gives the same bundle after', () => {
    let loads = 0;
    const bundle = lazyBundle(() => ({ n: ++loads }));
    assert.equal(loads, 0);
    const first = bundle();
    assert.equal(bundle(), first);
    assert.equal(loads, 1);
  });

  it('tries a load that threw again on the next call', () => {
    let loads = 0;
    const bundle = lazyBundle(() => {
      if (++loads === 1) throw new Error('not there yet');
      return 'loaded';
    });
    assert.throws(() => bundle(), /not there yet/);
    assert.equal(bundle(), 'loaded');
    assert.equal(loads, 2);
  });
});
