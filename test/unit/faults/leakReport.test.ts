// A token leak the fault suite finds says which token it was and which base URL it belongs to
// (test/faults/registry.ts), never the token: "4 token leaks" alone sent a reader after the
// wrong token in a clean-clone run, where the extension was still on another base URL.
import * as assert from 'node:assert/strict';
import { describeSecret, fingerprint, leakIn, registerEmulatorTokens, registerSecret } from '../../faults/registry';

const BASE = 'http://127.0.0.1:40000/api/public/v1';
const ELSEWHERE = 'http://0.0.0.0:40000/api/public/v1';
const DEFAULT = 'agr_leakReportDefaultToken0123456789';
const MADE = 'agr_leakReportMadeForAScenario98765';

describe('faults: what a token leak report says', () => {
  before(() => {
    registerEmulatorTokens({ default: DEFAULT }, BASE);
    registerSecret(MADE, { label: 'the token the plain-http scenario stores', baseUrl: ELSEWHERE });
  });

  it('names the token by label, fingerprint and base URL, and says where it was, without the token', () => {
    const leak = leakIn('the error notification', `The service said: "internal error for ${DEFAULT}"`);
    assert.ok(leak !== undefined, 'the leak was not found');
    assert.match(leak, /^token leak in the error notification: emulator token "default" \(sha256 [0-9a-f]{8}, the token for http:\/\/127\.0\.0\.1:40000\/api\/public\/v1\), the whole token at offset \d+/);
    assert.ok(leak.includes(fingerprint(DEFAULT)));
    assert.ok(!leak.includes(DEFAULT) && !leak.includes(DEFAULT.slice(4, 16)), `the report carries the token: ${leak}`);
  });

  it('tells two tokens apart, a piece of one too', () => {
    const leak = leakIn('the output channel', `… Bearer ${MADE.slice(3, 20)} …`) ?? '';
    assert.match(leak, /the token the plain-http scenario stores \(sha256 [0-9a-f]{8}, the token for http:\/\/0\.0\.0\.0:40000\/api\/public\/v1\), a 12-character piece/);
    assert.notEqual(fingerprint(MADE), fingerprint(DEFAULT));
    assert.ok(!leak.includes(MADE.slice(4, 16)), `the report carries the token: ${leak}`);
    assert.equal(leakIn('a clean sink', 'nothing secret here'), undefined);
  });

  it('a value nobody registered is described without being repeated', () => {
    const other = 'agr_notRegisteredAnywhere_0123456789';
    assert.equal(describeSecret(other), `a value not registered as a secret (sha256 ${fingerprint(other)})`);
  });
});
