// The dashboard's Host allowlist and Origin check (SPEC §11), table-driven, and the session
// cookie parser against any Cookie header (fast-check): it never throws, and finds the
// session only in its own well-formed cookie.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { ExectlError } from '../../../../src/errors.js';
import {
  allowedHosts,
  checkHost,
  checkOrigin,
  dashboardOrigin,
} from '../../../../src/service/dashboard/guard.js';
import { sessionCookie, sessionIdOf } from '../../../../src/service/dashboard/session.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

const HOSTS: [domain: string, url: string, host: string, allowed: boolean][] = [
  ['localhost', 'http://127.0.0.1:7070', '127.0.0.1:7070', true],
  ['localhost', 'http://127.0.0.1:7070', 'localhost:7070', true],
  ['localhost', 'http://127.0.0.1:7070', 'LOCALHOST:7070', true],
  ['localhost', 'http://127.0.0.1:7070', '[::1]:7070', true],
  ['localhost', 'http://127.0.0.1:7070', 'localhost', false],
  ['localhost', 'http://127.0.0.1:7070', 'localhost:7071', false],
  ['localhost', 'http://127.0.0.1:7070', 'evil.example:7070', false],
  ['localhost', 'http://127.0.0.1:7070', 'web.localhost:7070', false],
  ['localhost', 'http://127.0.0.1:7070', '', false],
  ['dev.example', 'http://0.0.0.0:7070', 'dev.example:7070', true],
  ['dev.example', 'http://0.0.0.0:7070', '0.0.0.0:7070', false],
  ['dev.example', 'https://10.0.0.5:443', 'dev.example', true],
  ['dev.example', 'https://10.0.0.5:443', '10.0.0.5:443', true],
  ['dev.example', 'http://10.0.0.5:80', '10.0.0.5', true],
];

for (const [domain, url, host, allowed] of HOSTS) {
  test(`Host ${JSON.stringify(host)} for ${url} (--domain ${domain}): ${allowed ? 'allowed' : 'refused'}`, () => {
    const hosts = allowedHosts({ domain }, url);
    const check = () => checkHost(request(host === '' ? {} : { host }), hosts);
    if (allowed) check();
    else assert.throws(check, (e: unknown) => e instanceof ExectlError && e.status === 403);
  });
}

const ORIGINS: [tls: boolean, host: string, origin: string | undefined, allowed: boolean][] = [
  [false, 'localhost:7070', 'http://localhost:7070', true],
  [false, 'localhost:7070', 'HTTP://LOCALHOST:7070', true],
  [false, 'localhost:7070', undefined, false],
  [false, 'localhost:7070', 'null', false],
  [false, 'localhost:7070', 'https://localhost:7070', false],
  [false, 'localhost:7070', 'http://127.0.0.1:7070', false],
  [false, 'localhost:7070', 'http://localhost:7070/', false],
  [true, 'dev.example', 'https://dev.example', true],
  [true, 'dev.example', 'http://dev.example', false],
];

for (const [tls, host, origin, allowed] of ORIGINS) {
  test(`Origin ${String(origin)} to ${tls ? 'https' : 'http'}://${host}: ${allowed ? 'allowed' : 'refused'}`, () => {
    const headers: Record<string, string> = { host };
    if (origin !== undefined) headers.origin = origin;
    const check = () => checkOrigin(request(headers), tls);
    if (allowed) check();
    else assert.throws(check, (e: unknown) => e instanceof ExectlError && e.status === 403);
  });
}

test('the session cookie: HttpOnly, SameSite=Strict, only for /_/, Secure under TLS', () => {
  assert.equal(
    sessionCookie('abc', 60, false),
    'exectl_session=abc; Path=/_/; HttpOnly; SameSite=Strict; Max-Age=60',
  );
  assert.equal(
    sessionCookie('abc', 60, true),
    'exectl_session=abc; Path=/_/; HttpOnly; SameSite=Strict; Max-Age=60; Secure',
  );
});

test('the session id is read from its own cookie among others', () => {
  const id = 'A'.repeat(43);
  assert.equal(sessionIdOf(request({ cookie: `a=1; exectl_session=${id}; b=2` })), id);
  assert.equal(sessionIdOf(request({ cookie: `xexectl_session=${id}` })), undefined);
  assert.equal(sessionIdOf(request({ cookie: 'exectl_session=a b' })), undefined);
  assert.equal(sessionIdOf(request({})), undefined);
});

test('any Cookie header: never throws, and yields only a well-formed id', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (cookie) => {
      const id = sessionIdOf(request({ cookie }));
      assert.ok(id === undefined || /^[A-Za-z0-9_-]{1,100}$/.test(id));
    }),
  );
});

test('a link names the listener, or the domain for a wildcard listen address, and is allowed', () => {
  for (const [domain, url, origin] of [
    ['localhost', 'http://127.0.0.1:7070', 'http://127.0.0.1:7070'],
    ['localhost', 'http://0.0.0.0:7070', 'http://localhost:7070'],
    ['dev.example', 'https://[::]:8443', 'https://dev.example:8443'],
    ['dev.example', 'http://[::1]:7070', 'http://[::1]:7070'],
  ] as const) {
    assert.equal(dashboardOrigin({ domain }, url), origin);
    checkHost(request({ host: new URL(origin).host }), allowedHosts({ domain }, url));
  }
});
