// Which draft the run panel reports is kept (panel/common/draftRule.ts). The case that made it:
// a follow-up sent, the window reloaded before the page saved its cleared composer, the run read
// (the follow-up settled) before the panel came back; the page's stale copy of the sent text,
// restored and reported, came back as a draft (a UI fault scenario on a clean clone).
import * as assert from 'node:assert/strict';
import { keepsDraft } from '../../../src/panel/common/draftRule';

describe('run panel drafts: what the page reports is kept unless it is a send', () => {
  const sent = ['Rename the flag to enable_cache'];

  it('a restored copy of a follow-up the run took since is not a draft; typed text is kept', () => {
    assert.equal(keepsDraft('Rename the flag to enable_cache ', true, undefined, sent), false);
    assert.equal(keepsDraft('Rename the flag to enable_cache', false, undefined, sent), true, 'typed again on purpose: kept');
    assert.equal(keepsDraft('Something new', true, undefined, sent), true);
  });

  it('the text of a send on its way or that may have arrived is never a draft', () => {
    assert.equal(keepsDraft('anything', false, { state: 'sending', prompt: 'other' }, []), false);
    assert.equal(keepsDraft(' Fix it ', false, { state: 'uncertain', prompt: 'Fix it' }, []), false);
    assert.equal(keepsDraft('Fix it too', false, { state: 'uncertain', prompt: 'Fix it' }, []), true);
  });
});
