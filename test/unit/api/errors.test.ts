import * as assert from 'node:assert/strict';
import { ApiError, describeApiError, mayHaveArrived, parseRetryAfter, redactSecrets, sanitizeServerText } from '../../../src/api';
import { httpError, transportError, type FailureContext } from '../../../src/api/describe';
import { TOKEN } from '../fixtures/apiServers';

const ctx: FailureContext = { method: 'POST', path: '/agents', host: 'svc.example.com', secrets: [TOKEN], userEmail: 'dev@example.com', model: 'model-a' };
const getCtx: FailureContext = { ...ctx, method: 'GET', path: '/agents/ag_1' };
const timeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000 };

function err(code: string, message = 'low-level failure'): Error {
  return Object.assign(new Error(message), { code });
}

describe('api: sanitizeServerText / redactSecrets', () => {
  it('strips control and bidi characters and collapses lines', () => {
    assert.equal(sanitizeServerText('bad\u0000 thing\r\n\thappened\u202e\u0007!', []), 'bad thing happened!');
  });

  it('caps length at about 200 characters', () => {
    const out = sanitizeServerText('x'.repeat(10_000), []);
    assert.equal(out.length, 200);
    assert.ok(out.endsWith('…'));
  });

  it('redacts the token, also split by control characters or cut short', () => {
    assert.equal(sanitizeServerText(`invalid token ${TOKEN}`, [TOKEN]), 'invalid token [redacted]');
    const split = `${TOKEN.slice(0, 10)}\u0000${TOKEN.slice(10)}`;
    assert.ok(!sanitizeServerText(`got ${split}`, [TOKEN]).includes(TOKEN.slice(5, 25)));
    const cut = TOKEN.slice(0, 20);
    const out = redactSecrets(`prefix ${cut}`, [TOKEN]);
    assert.equal(out, 'prefix [redacted]');
    assert.equal(redactSecrets('nothing to see', [TOKEN]), 'nothing to see');
    assert.equal(redactSecrets(`host ${TOKEN.toLowerCase()}.example.com`, [TOKEN]), 'host [redacted].example.com');
    assert.equal(redactSecrets('a short pw9 and PW9', ['pw9']), 'a short [redacted] and [redacted]');
  });

  it('redacts before truncating, so no part of an echoed token survives the cap', () => {
    const text = `${'a'.repeat(190)}${TOKEN}`;
    const out = sanitizeServerText(text, [TOKEN]);
    assert.ok(!out.includes(TOKEN.slice(0, 8)), out);
  });
});

describe('api: parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    assert.equal(parseRetryAfter('12', now), 12_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter(['5', '9'], now), 5_000);
  });

  it('ignores what it cannot read', () => {
    for (const v of [undefined, '', 'soon', '-3', '1.5', 'Wed, 99 Foo']) assert.equal(parseRetryAfter(v, now), undefined, String(v));
  });
});

describe('api: httpError classification', () => {
  const body = (o: unknown): string => JSON.stringify(o);

  it('maps each documented status and code to its kind', () => {
    const cases: [number, unknown, string][] = [
      [401, { error: 'Unauthorized' }, 'unauthorized'],
      [401, undefined, 'unauthorized'],
      [402, { error: 'no', code: 'api_access_required', reason: 'plan' }, 'plan_required'],
      [402, { error: 'no', code: 'insufficient_paid_credits' }, 'insufficient_credits'],
      [402, { error: 'pay' }, 'client'],
      [400, { error: 'need email', code: 'user_email_required' }, 'user_email_required'],
      [400, { error: 'bad body', code: 'invalid_body' }, 'client'],
      [403, { error: 'x', code: 'user_not_workspace_member' }, 'user_not_workspace_member'],
      [403, { error: 'x', code: 'missing_provider_credentials' }, 'missing_provider_credentials'],
      [403, { error: 'forbidden' }, 'client'],
      [404, { error: 'not found' }, 'not_found'],
      [409, { error: 'conflict' }, 'client'],
      [429, { error: 'slow down' }, 'rate_limited'],
      [500, { error: 'oops' }, 'server'],
      [503, '<html>down</html>', 'server'],
      [302, undefined, 'invalid_response'],
    ];
    for (const [status, b, kind] of cases) {
      const e = httpError(status, {}, b === undefined ? undefined : typeof b === 'string' ? b : body(b), ctx);
      assert.equal(e.kind, kind, `${status} ${JSON.stringify(b)}`);
      assert.equal(e.status, status);
      assert.equal(e.mayHaveReachedServer, true);
      assert.equal(e.method, 'POST');
      assert.equal(e.path, '/agents');
    }
  });

  it('writes messages a person can act on', () => {
    const m = (status: number, b: unknown, c: FailureContext = ctx): string => describeApiError(httpError(status, {}, body(b), c));
    assert.equal(m(401, {}), 'The token was refused (401). Set a new API token.');
    assert.equal(m(402, { code: 'api_access_required' }), 'This workspace\'s plan has no API access (402). Ask a workspace admin to upgrade the plan.');
    assert.equal(m(402, { code: 'insufficient_paid_credits' }), 'Not enough paid credits for model model-a (402). Choose a connected-provider model or add credits.');
    assert.equal(m(403, { code: 'user_not_workspace_member' }), 'dev@example.com is not a member of this workspace (403). Use the email of a workspace member.');
    assert.equal(m(403, { code: 'missing_provider_credentials', provider: 'anthropic' }), 'dev@example.com has no active credentials for provider anthropic (403). Connect them in the workspace settings.');
    assert.equal(m(403, { code: 'missing_provider_credentials' }), 'dev@example.com has no active credentials for the provider of model model-a (403). Connect them in the workspace settings.');
    assert.match(m(400, { code: 'user_email_required' }), /^Model model-a runs on a connected provider and needs the email of a workspace member \(400\)\. Set userEmail/);
    assert.equal(m(404, {}, getCtx), 'Agent ag_1 was not found (404); it may have been deleted or belong to another workspace.');
    assert.equal(m(400, { error: 'prompt too long', code: 'invalid_body' }), 'The service refused the request (400 invalid_body): prompt too long');
    assert.equal(m(422, {}), 'The service refused the request (422).');
    assert.match(m(500, { error: 'db down' }), /^The service failed \(500\); try again later\. The request may have been received; check before sending it again\. The service said: "db down"$/);
  });

  it('carries the server error, code and reason', () => {
    const e = httpError(402, {}, body({ error: 'Plan lacks API', code: 'api_access_required', reason: 'free_plan' }), ctx);
    assert.equal(e.code, 'api_access_required');
    assert.equal(e.reason, 'free_plan');
    assert.equal(e.serverMessage, 'Plan lacks API');
  });

  it('reads Retry-After as seconds or date on 429, and words GET and POST differently', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    const get = httpError(429, { retryAfter: '12' }, undefined, getCtx, now);
    assert.equal(get.retryAfterMs, 12_000);
    assert.equal(describeApiError(get), 'The service is rate limiting requests; retrying in 12 s.');
    const post = httpError(429, { retryAfter: 'Wed, 01 Jan 2025 00:03:00 GMT' }, undefined, ctx, now);
    assert.equal(post.retryAfterMs, 180_000);
    assert.equal(describeApiError(post), 'The service is rate limiting requests (429); try again in 3 min.');
    assert.equal(httpError(429, {}, undefined, ctx, now).retryAfterMs, undefined);
  });

  it('carries Retry-After on any answer that has one (502, 503, 409), as seconds or a date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(httpError(502, { retryAfter: '7' }, undefined, getCtx, now).retryAfterMs, 7_000);
    assert.equal(httpError(503, { retryAfter: 'Wed, 01 Jan 2025 00:01:00 GMT' }, undefined, getCtx, now).retryAfterMs, 60_000);
    const conflict = httpError(409, { retryAfter: '3' }, body({ error: 'busy' }), getCtx, now);
    assert.equal(conflict.kind, 'client');
    assert.equal(conflict.retryAfterMs, 3_000);
    assert.equal(httpError(502, {}, undefined, getCtx, now).retryAfterMs, undefined);
  });

  it('sanitises the server text and never lets the token through', () => {
    const e = httpError(400, {}, body({ error: `Bad token ${TOKEN}\n\u001b[31mred\u001b[0m ${'z'.repeat(400)}`, code: TOKEN }), ctx);
    for (const text of [e.message, e.serverMessage ?? '', e.code ?? '', describeApiError(e)]) {
      assert.ok(!text.includes(TOKEN), text);
      // eslint-disable-next-line no-control-regex
      assert.ok(!/[\u0000-\u001f]/.test(text), text);
    }
    assert.ok((e.serverMessage ?? '').length <= 200);
  });

  it('tolerates bodies that are not JSON or not objects', () => {
    for (const b of ['<html>401</html>', '', 'null', '[1]', '"x"', '{"error": 5}']) {
      const e = httpError(401, {}, b, ctx);
      assert.equal(e.kind, 'unauthorized');
      assert.equal(e.serverMessage, undefined);
    }
  });
});

describe('api: transportError classification', () => {
  const cases: [string, string, boolean][] = [
    ['ENOTFOUND', 'network', false],
    ['EAI_AGAIN', 'network', false],
    ['ECONNREFUSED', 'network', false],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout', false],
    ['ECONNRESET', 'network', true],
    ['UND_ERR_SOCKET', 'network', true],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout', true],
    ['UND_ERR_BODY_TIMEOUT', 'timeout', true],
    // Certificates are checked in the handshake, before any byte of the request.
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'network', false],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'network', false],
    ['CERT_HAS_EXPIRED', 'network', false],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'network', false],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'network', false],
    ['EPROTO', 'network', true],
    ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'invalid_response', true],
    ['HPE_INVALID_CONSTANT', 'invalid_response', true],
    ['UND_ERR_RES_EXCEEDED_MAX_SIZE', 'invalid_response', true],
    ['SOMETHING_NEW', 'network', true],
  ];
  for (const [code, kind, reached] of cases) {
    it(`${code} → ${kind}, mayHaveReachedServer ${reached}`, () => {
      const e = transportError({ error: err(code), phase: 'request', callerAborted: false, timeouts }, ctx);
      assert.equal(e.kind, kind);
      assert.equal(e.mayHaveReachedServer, reached);
    });
  }

  it('finds the code inside an AggregateError (happy eyeballs) or a cause', () => {
    const agg = new AggregateError([err('ECONNREFUSED'), err('ECONNREFUSED')], 'all failed');
    assert.equal(transportError({ error: agg, phase: 'request', callerAborted: false, timeouts }, ctx).mayHaveReachedServer, false);
    const wrapped = new Error('fetch failed', { cause: err('ENOTFOUND') });
    const e = transportError({ error: wrapped, phase: 'request', callerAborted: false, timeouts }, ctx);
    assert.equal(e.kind, 'network');
    assert.match(e.message, /DNS ENOTFOUND/);
  });

  it('reports a caller abort as aborted whatever the low-level error', () => {
    const e = transportError({ error: err('UND_ERR_ABORTED'), phase: 'body', callerAborted: true, timeouts }, ctx);
    assert.equal(e.kind, 'aborted');
  });

  it('keeps only a redacted copy of the low-level error as cause', () => {
    const low = err('ECONNRESET', `socket hang up while sending Bearer ${TOKEN}`);
    const e = transportError({ error: low, phase: 'request', callerAborted: false, timeouts }, ctx);
    assert.ok(e.cause instanceof Error);
    assert.notEqual(e.cause, low);
    assert.ok(!e.cause.message.includes(TOKEN));
    assert.ok(!(e.cause.stack ?? '').includes(TOKEN));
    assert.equal((e.cause as Error & { code?: string }).code, 'ECONNRESET');
  });

  it('tells a POST that it may have been received', () => {
    const e = transportError({ error: err('UND_ERR_HEADERS_TIMEOUT'), phase: 'request', callerAborted: false, timeouts }, ctx);
    assert.equal(describeApiError(e), 'The service did not answer within 30 s. The request may have been received; check before sending it again.');
  });
});

describe('api: transportError, before and after the request was written', () => {
  const failures: [string, { code: string; callerAborted?: boolean }][] = [
    ['a caller abort', { code: 'UND_ERR_ABORTED', callerAborted: true }],
    ['a closed client', { code: 'UND_ERR_DESTROYED' }],
    ['a reset', { code: 'ECONNRESET' }],
    ['a socket error', { code: 'UND_ERR_SOCKET' }],
    ['a headers timeout', { code: 'UND_ERR_HEADERS_TIMEOUT' }],
    ['a TCP timeout', { code: 'ETIMEDOUT' }],
    ['a TLS protocol error', { code: 'EPROTO' }],
    ['an unknown failure', { code: 'SOMETHING_NEW' }],
  ];
  for (const [name, f] of failures) {
    it(`${name}: not written → did not reach the service; written → a POST may have arrived`, () => {
      const at = (requestWritten: boolean | undefined): ApiError =>
        transportError({ error: err(f.code), phase: 'request', callerAborted: f.callerAborted ?? false, requestWritten, timeouts }, ctx);
      const before = at(false);
      assert.equal(before.mayHaveReachedServer, false);
      assert.equal(mayHaveArrived(before), false);
      assert.match(before.message, /Nothing was sent\.$|before anything was sent\.$/);
      assert.doesNotMatch(before.message, /may have/);
      for (const after of [at(true), at(undefined)]) {
        assert.equal(after.mayHaveReachedServer, true);
        assert.equal(mayHaveArrived(after), true);
        assert.match(after.message, /may have (been received|reached the service)/);
      }
    });
  }

  it('words a cancel by what is known', () => {
    const cancel = (c: FailureContext, requestWritten: boolean | undefined): string =>
      transportError({ error: err('UND_ERR_ABORTED'), phase: 'request', callerAborted: true, requestWritten, timeouts }, c).message;
    assert.equal(cancel(ctx, true), 'The request was cancelled after it was sent; it may have reached the service.');
    assert.equal(cancel(ctx, undefined), 'The request was cancelled; it may have reached the service.');
    assert.equal(cancel(ctx, false), 'The request was cancelled before anything was sent.');
    assert.equal(cancel(getCtx, true), 'The request was cancelled after it was sent.');
    assert.equal(cancel(getCtx, false), 'The request was cancelled before anything was sent.');
  });

  it('a refused certificate did not reach the service unless the write was seen, and names http.systemCertificates', () => {
    for (const requestWritten of [false, undefined]) {
      const e = transportError({ error: err('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), phase: 'request', callerAborted: false, requestWritten, timeouts }, ctx);
      assert.equal(e.mayHaveReachedServer, false);
      assert.equal(mayHaveArrived(e), false);
      assert.match(e.message, /not trusted.*http\.systemCertificates.*Nothing was sent\.$/);
      assert.doesNotMatch(e.message, /may have/);
    }
    const seen = transportError({ error: err('CERT_HAS_EXPIRED'), phase: 'request', callerAborted: false, requestWritten: true, timeouts }, ctx);
    assert.equal(seen.mayHaveReachedServer, true);
  });

  it('a failure while reading the body is after the write, whatever else is said', () => {
    const e = transportError({ error: err('UND_ERR_BODY_TIMEOUT'), phase: 'body', callerAborted: true, requestWritten: false, timeouts }, ctx);
    assert.equal(e.mayHaveReachedServer, true);
  });
});

describe('api: describeApiError', () => {
  it('keeps any ApiError to one bounded line and falls back per kind', () => {
    const multi = new ApiError({ kind: 'server', message: `line1\nline2\u0000 ${'x'.repeat(1000)}`, mayHaveReachedServer: true });
    const text = describeApiError(multi);
    assert.ok(!text.includes('\n'));
    assert.ok(text.length <= 400);
    assert.equal(describeApiError(new ApiError({ kind: 'unauthorized', message: '', mayHaveReachedServer: true })), 'The token was refused (401). Set a new API token.');
  });
});
