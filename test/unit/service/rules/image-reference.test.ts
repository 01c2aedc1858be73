// Image references resolve as Docker resolves them (SPEC §4a), and anything else is refused
// before a tool sees it: table-driven, plus properties over arbitrary input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  BadReference,
  canonicalName,
  parseReference,
  transportName,
} from '../../../../src/service/rules/image-reference.js';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

test('references resolve as Docker resolves them', () => {
  const table: [string, string][] = [
    ['ubuntu', 'docker.io/library/ubuntu:latest'],
    ['ubuntu:22.04', 'docker.io/library/ubuntu:22.04'],
    ['team/app:v1', 'docker.io/team/app:v1'],
    ['docker.io/library/debian:12', 'docker.io/library/debian:12'],
    ['127.0.0.1:5000/tests/site:1', '127.0.0.1:5000/tests/site:1'],
    ['localhost/app', 'localhost/app:latest'],
    ['ghcr.io/org/sub/app:1.2_3-x', 'ghcr.io/org/sub/app:1.2_3-x'],
    [`busybox@${DIGEST}`, `docker.io/library/busybox@${DIGEST}`],
    [`quay.io/a/b:1@${DIGEST}`, `quay.io/a/b:1@${DIGEST}`],
    ['my-registry:5000/app', 'my-registry:5000/app:latest'],
  ];
  for (const [given, canonical] of table) {
    assert.equal(canonicalName(parseReference(given)), canonical, given);
  }
});

test('what skopeo is asked for is one docker:// name', () => {
  const ref = parseReference('127.0.0.1:5000/tests/site:1');
  assert.equal(transportName(ref.registry, ref), 'docker://127.0.0.1:5000/tests/site:1');
});

test('what is not a reference is refused with what is wrong', () => {
  const table: [string, RegExp][] = [
    ['', /1 to 255 characters/],
    ['x'.repeat(256), /1 to 255 characters/],
    ['UPPER/case', /lowercase letters/],
    ['--help', /lowercase letters/],
    ['../etc', /registry "\.\." is not host/],
    ['a//b', /lowercase letters/],
    ['app:', /tag "" is not a valid tag/],
    ['app:-x', /tag "-x" is not a valid tag/],
    ['app@sha256:xyz', /digest is not sha256/],
    ['bad_host.io:99999/app', /registry "bad_host.io:99999" is not host\[:port\]/],
    ['host.io:0/app', /registry "host.io:0"/],
    ['app name', /lowercase letters/],
    ['/app', /lowercase letters/],
  ];
  for (const [given, why] of table) {
    assert.throws(
      () => parseReference(given),
      (err: unknown) => {
        assert.ok(err instanceof BadReference, given);
        assert.match(err.message, why, given);
        return true;
      },
    );
  }
});

test('any input is a reference whose docker:// name has no option, space or path escape, or is refused', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (given) => {
      let name: string;
      try {
        const ref = parseReference(given);
        name = transportName(ref.registry, ref);
      } catch (err) {
        assert.ok(err instanceof BadReference);
        return;
      }
      assert.match(name, /^docker:\/\/[A-Za-z0-9.:-]+\/[a-z0-9._/-]+[:@][A-Za-z0-9_.:-]+$/);
      assert.ok(!name.includes('..') || !name.split('/').includes('..'));
    }),
    { numRuns: 2000 },
  );
});
