// The SSH listener's connection counting: which connection each limit turns away, and that
// signing in and leaving give the places back, once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConnectionGate,
  type Admission,
  type ConnectionLimits,
} from '../../../../src/service/ssh/connection-limits.js';

const LIMITS: ConnectionLimits = {
  maxConnections: 6,
  maxConnectionsPerAddress: 4,
  maxUnauthenticated: 3,
  maxUnauthenticatedPerAddress: 2,
  loginGraceMs: 1000,
};

/** Admits one connection per address in `from`; true for each one let in. */
function admitAll(gate: ConnectionGate, from: string[], signIn: boolean): boolean[] {
  return from.map((address) => {
    const admission = gate.admit(address);
    if (signIn) admission?.authenticated();
    return admission !== undefined;
  });
}

const CASES: [name: string, signIn: boolean, from: string[], admitted: boolean[]][] = [
  ['2 unauthenticated per address', false, ['a', 'a', 'a', 'b'], [true, true, false, true]],
  ['3 unauthenticated in all', false, ['a', 'b', 'c', 'd'], [true, true, true, false]],
  [
    '4 signed in per address',
    true,
    ['a', 'a', 'a', 'a', 'a', 'b'],
    [true, true, true, true, false, true],
  ],
  [
    '6 signed in, in all',
    true,
    ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
    [...Array(6).fill(true), false],
  ],
];
for (const [name, signIn, from, admitted] of CASES) {
  test(`connection gate: ${name}`, () => {
    assert.deepEqual(admitAll(new ConnectionGate(LIMITS), from, signIn), admitted);
  });
}

test('connection gate: signing in frees an unauthenticated place; leaving frees both, once', () => {
  const gate = new ConnectionGate(LIMITS);
  const first = gate.admit('a')!;
  gate.admit('a')!;
  assert.equal(gate.admit('a'), undefined);
  first.authenticated();
  first.authenticated();
  const third: Admission = gate.admit('a')!;
  assert.notEqual(third, undefined);
  assert.equal(gate.admit('a'), undefined, 'signing in twice freed one place only');
  third.release();
  third.release();
  third.authenticated();
  assert.notEqual(gate.admit('a'), undefined);
  assert.equal(gate.admit('a'), undefined, 'leaving twice freed one place only');
});
