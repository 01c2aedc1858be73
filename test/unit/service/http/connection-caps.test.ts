// The counting behind the caps on open connections (SPEC §7), and their defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConnectionCounts,
  defaultConnectionLimits,
  perAccountCap,
} from '../../../../src/service/http/connection-caps.js';

test('ConnectionCounts: a cap per address and one in all; a release frees a place', () => {
  const counts = new ConnectionCounts({ perAddress: 2, total: 3 });
  // [step, address, expected admit result (releases: undefined), total after]
  const steps: [string, 'admit' | 'release', string, boolean | undefined, number][] = [
    ['first from a', 'admit', 'a', true, 1],
    ['second from a', 'admit', 'a', true, 2],
    ['third from a: its cap', 'admit', 'a', false, 2],
    ['first from b', 'admit', 'b', true, 3],
    ['first from c: the cap in all', 'admit', 'c', false, 3],
    ['one of a ends', 'release', 'a', undefined, 2],
    ['c is let in', 'admit', 'c', true, 3],
    ['a still may not pass the cap in all', 'admit', 'a', false, 3],
    ['b ends', 'release', 'b', undefined, 2],
    ['a again', 'admit', 'a', true, 3],
  ];
  for (const [step, action, address, admitted, total] of steps) {
    if (action === 'admit') assert.equal(counts.admit(address), admitted, step);
    else counts.release(address);
    assert.equal(counts.total, total, step);
  }
});

test('ConnectionCounts: all VMs of one account share a cap besides each VM’s own', () => {
  const counts = new ConnectionCounts({ perAddress: 2, total: 10, perAccount: 3 });
  // [step, VM key, its account, expected admit result (releases: undefined), total after]
  const steps: [
    string,
    'admit' | 'release',
    string,
    string | undefined,
    boolean | undefined,
    number,
  ][] = [
    ['vm 1 of account a', 'admit', 'vm:1', 'account:a', true, 1],
    ['vm 1 again', 'admit', 'vm:1', 'account:a', true, 2],
    ['vm 1: its own cap', 'admit', 'vm:1', 'account:a', false, 2],
    ['vm 2 of account a', 'admit', 'vm:2', 'account:a', true, 3],
    ['vm 3 of account a: the account’s cap', 'admit', 'vm:3', 'account:a', false, 3],
    ['vm 4 of account b: a cap of its own', 'admit', 'vm:4', 'account:b', true, 4],
    ['a host client: no account', 'admit', '127.0.0.1', undefined, true, 5],
    ['one of vm 1 ends', 'release', 'vm:1', 'account:a', undefined, 4],
    ['vm 3 is let in', 'admit', 'vm:3', 'account:a', true, 5],
  ];
  for (const [step, action, key, account, admitted, total] of steps) {
    if (action === 'admit') assert.equal(counts.admit(key, account), admitted, step);
    else counts.release(key, account);
    assert.equal(counts.total, total, step);
  }
});

test('perAccountCap: as given, else a quarter of the cap in all, at least the per-address one', () => {
  assert.equal(perAccountCap({ perAddress: 256, total: 4096 }), 1024);
  assert.equal(perAccountCap({ perAddress: 256, total: 4096, perAccount: 50 }), 50);
  assert.equal(perAccountCap({ perAddress: 2, total: 16 }), 4);
  assert.equal(perAccountCap({ perAddress: 16, total: 40 }), 16);
});

test('defaultConnectionLimits: a quarter of the descriptors up to 4096, a sixteenth of that per address', () => {
  const cases: [number, number, number][] = [
    // [RLIMIT_NOFILE, total, per address]
    [1024, 256, 16],
    [20_000, 4096, 256],
    [1_048_576, 4096, 256],
    [Number.MAX_SAFE_INTEGER, 4096, 256],
    [40, 16, 2],
  ];
  for (const [openFiles, total, perAddress] of cases) {
    const limits = defaultConnectionLimits(openFiles);
    assert.deepEqual(
      limits,
      { total, perAddress, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 },
      String(openFiles),
    );
  }
});
