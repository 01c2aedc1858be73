// The reflection listener reads untrusted request targets: a table of what each one means,
// and for ANY target an answer that keeps the secret and the name exactly as sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  parseReflectionRoute,
  type ReflectionRoute,
} from '../../../../src/service/reflection/route.js';
import { BranchShare } from '../../../helpers/branch-share.js';

const S = 'Abc_-09xyz';

test('targets and what they ask for', () => {
  const cases: [target: string, route: ReflectionRoute][] = [
    [`/vm/${S}`, { kind: 'document', secret: S, path: '/' }],
    [`/vm/${S}/`, { kind: 'document', secret: S, path: '/' }],
    [`/vm/${S}//`, { kind: 'document', secret: S, path: '/' }],
    [`/vm/${S}?x=1`, { kind: 'document', secret: S, path: '/' }],
    [`/vm/${S}/?x=1`, { kind: 'document', secret: S, path: '/' }],
    [`/vm/${S}/email`, { kind: 'document', secret: S, path: '/email' }],
    [`/vm/${S}/email/`, { kind: 'document', secret: S, path: '/email' }],
    [`/vm/${S}/email?pretty`, { kind: 'document', secret: S, path: '/email' }],
    [`/vm/${S}/%65mail`, { kind: 'document', secret: S, path: '/%65mail' }],
    [`/vm/${S}/integrations`, { kind: 'document', secret: S, path: '/integrations' }],
    [`/vm/${S}/i`, { kind: 'document', secret: S, path: '/i' }],
    [`/vm/${S}/i/`, { kind: 'document', secret: S, path: '/i' }],
    [`/vm/${S}/i/llm`, { kind: 'integration', secret: S, name: 'llm', rest: '' }],
    [`/vm/${S}/i/llm/`, { kind: 'integration', secret: S, name: 'llm', rest: '/' }],
    [`/vm/${S}/i/llm?x=1`, { kind: 'integration', secret: S, name: 'llm', rest: '?x=1' }],
    [
      `/vm/${S}/i/gh/org/repo.git/info/refs?service=git-upload-pack`,
      {
        kind: 'integration',
        secret: S,
        name: 'gh',
        rest: '/org/repo.git/info/refs?service=git-upload-pack',
      },
    ],
    [`/vm/${S}/i/a/../../b`, { kind: 'integration', secret: S, name: 'a', rest: '/../../b' }],
    ['/', { kind: 'none' }],
    ['/vm', { kind: 'none' }],
    ['/vm/', { kind: 'none' }],
    ['/vm//email', { kind: 'none' }],
    ['/vm/a%2Fb/email', { kind: 'none' }],
    ['/vm/a.b', { kind: 'none' }],
    [`/VM/${S}`, { kind: 'none' }],
    [`/exec`, { kind: 'none' }],
    [`http://host/vm/${S}`, { kind: 'none' }],
  ];
  for (const [target, route] of cases) {
    assert.deepEqual(parseReflectionRoute(target), route, target);
  }
});

test('any target: the secret is a base64url word and the rest is kept verbatim', (t) => {
  const share = new BranchShare();
  const secret = fc.string({
    unit: fc.constantFrom(...'AZaz09_-'.split('')),
    minLength: 1,
    maxLength: 50,
  });
  const anyTail = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.webPath());
  fc.assert(
    fc.property(fc.oneof(fc.string(), secret), anyTail, (s, tail) => {
      const target = `/vm/${s}${tail}`;
      const route = parseReflectionRoute(target);
      if (route.kind === 'none') return share.refused();
      share.accepted();
      assert.match(route.secret, /^[A-Za-z0-9_-]+$/);
      if (route.kind === 'integration') {
        assert.equal(target, `/vm/${route.secret}/i/${route.name}${route.rest}`);
        assert.ok(!route.name.includes('/') && !route.name.includes('?'));
      } else {
        assert.ok(route.path === '/' || !route.path.endsWith('/'), route.path);
        assert.ok(!route.path.includes('?'), route.path);
        assert.ok(target.startsWith(`/vm/${route.secret}${route.path === '/' ? '' : route.path}`));
      }
    }),
    { numRuns: 5000 },
  );
  share.assertFloor((message) => t.diagnostic(message));
});
