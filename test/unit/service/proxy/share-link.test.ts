// The proxy's reading of `?share=` and of the share cookie (share-link.ts): what is taken out of
// a request target and a Cookie header, table by table, and a property: for ANY target the
// redirect stays on the same host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  shareCookies,
  shareParameter,
  withoutShareCookies,
} from '../../../../src/service/proxy/share-link.js';

test('shareParameter: the token, and the target left without it', () => {
  const rows: [string, { token: string; rest: string } | null][] = [
    ['/', null],
    ['/?a=1', null],
    ['/?shared=1', null],
    ['/?share=abc', { token: 'abc', rest: '/' }],
    ['/x?share=abc', { token: 'abc', rest: '/x' }],
    ['/x?a=1&share=abc&b=2', { token: 'abc', rest: '/x?a=1&b=2' }],
    ['/x?share', { token: '', rest: '/x' }],
    ['//evil.test/x?share=abc', { token: 'abc', rest: '/evil.test/x' }],
    ['/\\evil.test?share=abc', { token: 'abc', rest: '/evil.test' }],
    ['http://evil.test/x?share=abc', { token: 'abc', rest: '/' }],
    ['*?share=abc', { token: 'abc', rest: '/' }],
  ];
  for (const [url, want] of rows) assert.deepEqual(shareParameter(url), want, url);
});

test('shareParameter: whatever the target, the redirect is a path of this host', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), (path, query) => {
      const parsed = shareParameter(`${path}?${query}&share=t`);
      assert.ok(parsed !== null);
      assert.ok(parsed.rest.startsWith('/'));
      assert.ok(!/^\/[/\\]/.test(parsed.rest), parsed.rest);
    }),
    { numRuns: 2000 },
  );
});

test('share cookies: every one is read, and every one is taken out', () => {
  const rows: [string, string[], string | null][] = [
    ['a=1', [], 'a=1'],
    ['exectl_share=t1', ['t1'], null],
    ['a=1; exectl_share=t1; b=2', ['t1'], 'a=1; b=2'],
    ['exectl_share=t1;exectl_share=t2', ['t1', 't2'], null],
    ['xexectl_share=t1; exectl_shared=2', [], 'xexectl_share=t1; exectl_shared=2'],
  ];
  for (const [header, tokens, rest] of rows) {
    assert.deepEqual(shareCookies(header), tokens, header);
    assert.equal(withoutShareCookies(header), rest, header);
  }
  assert.deepEqual(shareCookies(undefined), []);
});
