import * as assert from 'node:assert/strict';
import { ApiError, isInsecureRemote, isLoopbackHost, normalizeBaseUrl } from '../../../src/api';

function refused(input: string, detail: RegExp): void {
  assert.throws(() => normalizeBaseUrl(input), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.kind, 'invalid_base_url');
    assert.equal(e.mayHaveReachedServer, false);
    assert.match(e.message, detail);
    assert.match(e.message, /Expected a URL like https:\/\/host\.example\.com\/api\/public\/v1\.$/);
    return true;
  });
}

describe('api: normalizeBaseUrl', () => {
  it('trims whitespace and trailing slashes', () => {
    assert.equal(normalizeBaseUrl('  https://svc.example.com/api/public/v1/  \n'), 'https://svc.example.com/api/public/v1');
    assert.equal(normalizeBaseUrl('https://svc.example.com/api/public/v1///'), 'https://svc.example.com/api/public/v1');
  });

  it('lower-cases the host, drops the default port and keeps others, keeps a path prefix', () => {
    assert.equal(normalizeBaseUrl('HTTPS://SVC.Example.COM:443/api/public/v1'), 'https://svc.example.com/api/public/v1');
    assert.equal(normalizeBaseUrl('http://127.0.0.1:8080/api/public/v1'), 'http://127.0.0.1:8080/api/public/v1');
    assert.equal(normalizeBaseUrl('https://gw.example.com/tenant/api/public/v1'), 'https://gw.example.com/tenant/api/public/v1');
    assert.equal(normalizeBaseUrl('http://[::1]:9/api/public/v1'), 'http://[::1]:9/api/public/v1');
  });

  it('refuses empty, unparsable and non-http(s) input', () => {
    refused('', /not set/);
    refused('   ', /not set/);
    refused('svc.example.com/api/public/v1', /not a valid URL/);
    refused('ftp://svc.example.com/api/public/v1', /must start with https:\/\/ or http:\/\//);
    refused('file:///api/public/v1', /must start with/);
    refused('https://svc.example.com/api public/v1', /contains spaces/);
  });

  it('refuses a path that does not end in /api/public/v1', () => {
    refused('https://svc.example.com', /must end with \/api\/public\/v1/);
    refused('https://svc.example.com/api/public/v2', /must end with/);
    refused('https://svc.example.com/api/public/v1/agents', /must end with/);
    refused('https://svc.example.com/API/PUBLIC/V1', /must end with/);
  });

  it('refuses credentials, queries and fragments', () => {
    refused('https://user:pw@svc.example.com/api/public/v1', /user name or password/);
    refused('https://user@svc.example.com/api/public/v1', /user name or password/);
    refused('https://svc.example.com/api/public/v1?token=x', /query/);
    refused('https://svc.example.com/api/public/v1?', /query/);
    refused('https://svc.example.com/api/public/v1#frag', /fragment/);
  });
});

describe('api: isLoopbackHost / isInsecureRemote', () => {
  it('recognises loopback hosts', () => {
    for (const url of ['http://localhost:1/x', 'http://LOCALHOST/x', 'http://app.localhost/x', 'http://127.0.0.1/x', 'http://127.8.9.10/x', 'http://[::1]:8/x', 'http://[::ffff:127.0.0.1]/x', new URL('http://127.0.0.1:5/')]) {
      assert.equal(isLoopbackHost(url), true, String(url));
    }
    for (const url of ['http://example.com/x', 'http://10.0.0.1/x', 'http://128.0.0.1/x', 'http://localhost.example.com/x', 'http://[::2]/x', 'not a url']) {
      assert.equal(isLoopbackHost(url), false, url);
    }
  });

  it('flags plain http to a remote host only', () => {
    assert.equal(isInsecureRemote('http://svc.example.com/api/public/v1'), true);
    assert.equal(isInsecureRemote('http://192.168.1.5:8080/api/public/v1'), true);
    assert.equal(isInsecureRemote('https://svc.example.com/api/public/v1'), false);
    assert.equal(isInsecureRemote('http://127.0.0.1:8080/api/public/v1'), false);
    assert.equal(isInsecureRemote('http://localhost/api/public/v1'), false);
    assert.equal(isInsecureRemote('garbage'), false);
  });
});
