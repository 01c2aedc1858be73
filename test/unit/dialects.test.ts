// The one table of the real service's names (SPEC §12): which spellings are read as exectl's,
// and only when the server speaks that dialect. Table rows, then a property over any input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  canonicalToken,
  commandIn,
  COMPAT_NAMES,
  dialectOfSvc0Prefix,
  dialectsFor,
  svc0In,
  svc1In,
} from '../../src/dialects.js';

const OWN = dialectsFor(null);
const EXE_DEV = dialectsFor('exe.dev');

test('canonicalToken: exe0./exe1. read as svc0./svc1. under exe.dev only', () => {
  const rows: [string, string, string][] = [
    ['exe0.e30.U1NI', 'svc0.e30.U1NI', 'exe0.e30.U1NI'],
    ['exe1.ABC', 'svc1.ABC', 'exe1.ABC'],
    ['svc0.e30.U1NI', 'svc0.e30.U1NI', 'svc0.e30.U1NI'],
    ['svc1.ABC', 'svc1.ABC', 'svc1.ABC'],
    ['EXE0.e30.x', 'EXE0.e30.x', 'EXE0.e30.x'],
    ['exe0', 'exe0', 'exe0'],
    ['exe2.x', 'exe2.x', 'exe2.x'],
    ['', '', ''],
  ];
  for (const [token, underCompat, without] of rows) {
    assert.equal(canonicalToken(token, EXE_DEV), underCompat, token);
    assert.equal(canonicalToken(token, OWN), without, token);
  }
});

test('canonicalToken changes at most the prefix, and nothing without a compat dialect', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (token) => {
      assert.equal(canonicalToken(token, OWN), token);
      const read = canonicalToken(token, EXE_DEV);
      assert.equal(read.length, token.length);
      assert.equal(read.slice(5), token.slice(5));
    }),
  );
});

test('spellings, aliases and the values --compat and --prefix accept', () => {
  const exeDev = EXE_DEV[1]!;
  assert.deepEqual(COMPAT_NAMES, ['exe.dev']);
  assert.equal(svc0In('svc0.e30.U1NI', exeDev), 'exe0.e30.U1NI');
  assert.equal(svc1In('svc1.ABC', exeDev), 'exe1.ABC');
  assert.equal(commandIn('svc0-to-svc1', exeDev), 'exe0-to-exe1');
  assert.equal(commandIn('svc0-to-svc1', OWN[0]!), 'svc0-to-svc1');
  assert.equal(dialectOfSvc0Prefix('exe0'), exeDev);
  assert.equal(dialectOfSvc0Prefix('exe0.'), exeDev);
  assert.equal(dialectOfSvc0Prefix('svc0'), OWN[0]);
  assert.equal(dialectOfSvc0Prefix('exe1'), undefined);
  assert.throws(() => dialectsFor('aws'), /unknown compat mode aws/);
});
