import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { Drafts } from '../../../src/run/drafts';

/** The part of vscode.Memento that Drafts uses, in memory. */
function memento(initial: Record<string, unknown> = {}): vscode.Memento & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>(Object.entries(initial));
  return {
    data,
    keys: () => [...data.keys()],
    get: <T>(key: string, fallback?: T): T | undefined => (data.has(key) ? data.get(key) as T : fallback),
    update: (key: string, value: unknown) => {
      data.set(key, value);
      return Promise.resolve();
    },
  };
}

describe('follow-up drafts', () => {
  it('keeps, replaces and clears a draft per run', () => {
    const state = memento();
    const drafts = new Drafts(state);
    drafts.set('a', 'first');
    drafts.set('b', 'other');
    drafts.set('a', 'second');
    assert.equal(drafts.get('a'), 'second');
    drafts.set('a', '   ');
    assert.equal(drafts.get('a'), undefined);
    assert.equal(drafts.get('b'), 'other');
  });

  it('resets an unreadable store with one warning, and keeps working', () => {
    for (const garbage of ['garbage', [1, 2], 42, null]) {
      const warnings: string[] = [];
      const drafts = new Drafts(memento({ 'agentRuns.drafts.v1': garbage }), (m) => warnings.push(m));
      assert.equal(drafts.get('a'), undefined);
      assert.equal(drafts.get('b'), undefined);
      drafts.set('a', 'typed after the reset');
      assert.equal(drafts.get('a'), 'typed after the reset');
      assert.deepEqual(warnings, ['The saved follow-up drafts were unreadable and have been reset.'], JSON.stringify(garbage));
    }
  });

  it('drops unreadable entries, keeps the good ones and says so once', () => {
    const warnings: string[] = [];
    const drafts = new Drafts(memento({ 'agentRuns.drafts.v1': { a: { text: 'kept', at: 1 }, b: 'junk', c: { text: 3 } } }), (m) => warnings.push(m));
    assert.equal(drafts.get('a'), 'kept');
    assert.equal(drafts.get('b'), undefined);
    assert.equal(drafts.get('a'), 'kept');
    assert.deepEqual(warnings, ['2 unreadable follow-up draft(s) were dropped.']);
  });

  it('says nothing when there are no drafts yet', () => {
    const warnings: string[] = [];
    const drafts = new Drafts(memento(), (m) => warnings.push(m));
    assert.equal(drafts.get('a'), undefined);
    assert.deepEqual(warnings, []);
  });
});
