// Where the integration proxy sends a VM's request: a table, and for ANY path the VM sends, a
// URL on the target's origin inside the target's path — or a refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ExectlError } from '../../../../src/errors.js';
import { upstreamUrl } from '../../../../src/service/integrations/upstream-url.js';

const LEAVES = "path leaves the integration's target";

test('target + rest', () => {
  const cases: [target: string, rest: string, url: string][] = [
    ['https://api.example.com', '', 'https://api.example.com/'],
    ['https://api.example.com', '/v1/models', 'https://api.example.com/v1/models'],
    ['https://api.example.com/v1', '', 'https://api.example.com/v1'],
    ['https://api.example.com/v1', '/', 'https://api.example.com/v1/'],
    ['https://api.example.com/v1/', '/models', 'https://api.example.com/v1/models'],
    ['https://api.example.com/v1', '?a=1&b', 'https://api.example.com/v1?a=1&b'],
    ['http://127.0.0.1:8080/x', '/y/z?q=%20', 'http://127.0.0.1:8080/x/y/z?q=%20'],
    ['http://h', '//evil.example/x', 'http://h//evil.example/x'],
    ['http://h', '/a/../b', 'http://h/b'],
    ['http://h/base', '/a/./b/../c', 'http://h/base/a/c'],
    ['http://h', '/../../etc', 'http://h/etc'],
    ['http://h/x', '/%2F%2Fevil', 'http://h/x/%2F%2Fevil'],
  ];
  for (const [target, rest, url] of cases) {
    assert.equal(upstreamUrl(target, rest).href, url, `${target} + ${rest}`);
  }
  for (const rest of ['/..', '/../admin', '/%2e%2e/admin', '/%2E%2E', '/a/../../v1x', '/..\\x']) {
    assert.throws(
      () => upstreamUrl('http://h/v1', rest),
      (err: unknown) => err instanceof ExectlError && err.status === 400 && err.message === LEAVES,
      rest,
    );
  }
});

test('any rest: same origin, inside the target path, or refused with 400', () => {
  const target = fc.constantFrom(
    'http://h',
    'https://h:8443/v1',
    'http://h/a/b/',
    'http://[::1]:9/x',
  );
  const segment = fc.oneof(
    fc.constantFrom('..', '.', '%2e%2e', '%2E.', '', 'x', '\\..', '//evil.example', '@evil', ':80'),
    fc.string(),
  );
  const rest = fc.oneof(
    fc.array(segment, { maxLength: 6 }).map((parts) => parts.map((p) => `/${p}`).join('')),
    fc.string({ unit: 'binary' }),
    fc.webPath(),
  );
  fc.assert(
    fc.property(target, rest, (t, r) => {
      const base = new URL(t);
      const basePath = base.pathname.replace(/\/+$/, '');
      try {
        const url = upstreamUrl(t, r);
        assert.equal(url.origin, base.origin, r);
        assert.ok(url.pathname === basePath || url.pathname.startsWith(`${basePath}/`), r);
      } catch (err) {
        assert.ok(err instanceof ExectlError && err.status === 400 && err.message === LEAVES, r);
      }
    }),
    { numRuns: 5000 },
  );
});
