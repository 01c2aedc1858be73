// TokenAuthenticator end to end: the bounds on its remembered signature checks, and failed
// verifications per client address; real tokens, minted
// with a real key registered in a real store on a temp file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { ExectlError } from '../../../../src/errors.js';
import { refusedForFailures } from '../../../../src/service/http/failures-by-address.js';
import { TokenAuthenticator } from '../../../../src/service/http/token-auth.js';
import { TURNS_PER_SECOND } from '../../../../src/service/http/verification-turns.js';
import { openStore, type Store } from '../../../../src/service/store/index.js';
import { TokenError } from '../../../../src/token/errors.js';
import { mintSvc0 } from '../../../../src/token/mint.js';
import { createMemorySigner } from '../../../helpers/signers.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';

const NS = 'v0@localhost';
const signer = createMemorySigner('ed25519', 'laptop@host');

let dir: TempDir;
let store: Store;
let accountId: number;

before(async () => {
  dir = await createTempDir('token-auth');
  store = openStore(dir.join('exectl.db'));
  accountId = store.createAccount('owner@example.com', [
    {
      name: 'laptop',
      fingerprint: signer.publicKey.fingerprint,
      publicKey: signer.publicKey.toOpenSsh(),
      keyType: signer.publicKey.type,
    },
  ]).id;
});

after(async () => {
  store.close();
  await dir.remove();
});

/** A distinct valid token of the registered key: ed25519 signs deterministically, so vary exp. */
function token(n: number): Promise<string> {
  return mintSvc0(`{"exp":${4_000_000_000 + n},"cmds":["whoami"]}`, signer, NS);
}

test('the same token is verified once and remembered, not counted again', async () => {
  const auth = new TokenAuthenticator(store, Date.now, { verifiedLimit: 2 });
  const one = await token(1);
  assert.equal(auth.cachedVerifications, 0);
  assert.equal(auth.authenticate(one, NS).account.id, accountId);
  assert.equal(auth.cachedVerifications, 1);
  assert.equal(auth.authenticate(one, NS).account.id, accountId);
  assert.equal(auth.cachedVerifications, 1);
});

test('reaching the bound forgets every remembered check; a forgotten token verifies again', async () => {
  const auth = new TokenAuthenticator(store, Date.now, { verifiedLimit: 2 });
  const [one, two, three] = await Promise.all([token(1), token(2), token(3)]);

  for (const [t, count] of [
    [one, 1],
    [two, 2],
    // The bound is reached: all are forgotten, then this one is remembered.
    [three, 1],
  ] as const) {
    const caller = auth.authenticate(t, NS);
    assert.equal(caller.account.id, accountId);
    assert.equal(caller.principal.keyFingerprint, signer.publicKey.fingerprint);
    assert.equal(auth.cachedVerifications, count);
  }

  // `three` is still remembered: no new entry.
  auth.authenticate(three, NS);
  assert.equal(auth.cachedVerifications, 1);
  // `one` was forgotten: it is verified afresh (and still passes), and remembered anew.
  assert.deepEqual(auth.authenticate(one, NS).principal.cmds, ['whoami']);
  assert.equal(auth.cachedVerifications, 2);
});

test('without a limit given, the default bound is far above a handful of tokens', async () => {
  const auth = new TokenAuthenticator(store, Date.now);
  const tokens = await Promise.all([1, 2, 3, 4].map(token));
  for (const t of tokens) auth.authenticate(t, NS);
  assert.equal(auth.cachedVerifications, 4);
});

/** `t` with the last byte of its signature changed: well-formed, signed by a registered key, false. */
function tampered(t: string): string {
  const [prefix, payload, sig] = t.split('.') as [string, string, string];
  const blob = Buffer.from(sig, 'base64url');
  blob[blob.length - 1]! ^= 1;
  return `${prefix}.${payload}.${blob.toString('base64url')}`;
}

/** `store`, counting how often a key is looked up: once per signature check that gets that far. */
function countingLookups(): { store: Store; lookups(): number } {
  let lookups = 0;
  const counting = new Proxy(store, {
    get(target, name) {
      if (name === 'findKeyByFingerprint') {
        return (fingerprint: string) => {
          lookups += 1;
          return target.findKeyByFingerprint(fingerprint);
        };
      }
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: counting, lookups: () => lookups };
}

const refused = (authenticate: () => unknown) =>
  assert.throws(authenticate, (err: unknown) => {
    assert.ok(err instanceof TokenError);
    assert.deepEqual([err.status, err.message], [401, 'invalid token']);
    return true;
  });

test('a failed signature check is remembered for 60 s: the same 401, not verified again', async () => {
  let now = Date.now();
  const counted = countingLookups();
  const auth = new TokenAuthenticator(counted.store, () => now);
  const bad = tampered(await token(7));
  refused(() => auth.authenticate(bad, NS));
  assert.equal(counted.lookups(), 1);
  for (let i = 0; i < 5; i++) refused(() => auth.authenticate(bad, NS));
  assert.equal(counted.lookups(), 1, 'answered from the failed-verification cache');
  assert.equal(auth.cachedFailures, 1);
  now += 61_000;
  refused(() => auth.authenticate(bad, NS));
  assert.equal(counted.lookups(), 2, 'verified again once forgotten');
});

test('a token of a key not registered yet is not remembered as failed: it passes once the key is', async () => {
  const newcomer = createMemorySigner('ed25519', 'new@host');
  const auth = new TokenAuthenticator(store, Date.now);
  const t = await mintSvc0(`{"exp":4000000000,"cmds":["whoami"]}`, newcomer, NS);
  refused(() => auth.authenticate(t, NS));
  assert.equal(auth.cachedFailures, 0);
  store.addKey({
    accountId,
    name: 'newcomer',
    fingerprint: newcomer.publicKey.fingerprint,
    publicKey: newcomer.publicKey.toOpenSsh(),
    keyType: newcomer.publicKey.type,
  });
  assert.equal(auth.authenticate(t, NS).principal.keyFingerprint, newcomer.publicKey.fingerprint);
});

test('the failed-verification cache is bounded: reaching the bound forgets them all', async () => {
  const auth = new TokenAuthenticator(store, Date.now, { failedLimit: 2 });
  const bad = await Promise.all([11, 12, 13].map(async (n) => tampered(await token(n))));
  for (const [t, count] of [
    [bad[0]!, 1],
    [bad[1]!, 2],
    [bad[2]!, 1],
  ] as const) {
    refused(() => auth.authenticate(t, NS));
    assert.equal(auth.cachedFailures, count);
  }
});

/** Failed verifications per client address (SPEC §7): 3 in a burst, one more each 20 s. */
const FAILURES = { capacity: 3, refillMs: 60_000 };

const rateLimited = (authenticate: () => unknown) =>
  assert.throws(authenticate, (err: unknown) => {
    assert.ok(err instanceof ExectlError);
    assert.deepEqual([err.status, err.message], [429, 'rate limit exceeded']);
    assert.equal(err.headers['Connection'], 'close');
    assert.match(err.headers['Retry-After'] ?? '', /^[1-9]\d*$/);
    assert.ok(refusedForFailures(err));
    return true;
  });

test('past its address budget a failure gets 429, while valid tokens from that address pass', async () => {
  let now = Date.now();
  const counted = countingLookups();
  const auth = new TokenAuthenticator(counted.store, () => now, { failureRate: FAILURES });
  const from = () => ({ remoteAddress: '10.0.0.1' });
  const bad = await Promise.all([21, 22, 23, 24, 25].map(async (n) => tampered(await token(n))));
  for (const t of bad.slice(0, 3)) refused(() => auth.authenticate(t, NS, from()));
  rateLimited(() => auth.authenticate(bad[3]!, NS, from()));
  // Never seen before, so verified (the key looked up) and let in: the bucket is not asked.
  const valid = await token(26);
  const lookups = counted.lookups();
  assert.equal(auth.authenticate(valid, NS, from()).account.id, accountId);
  assert.equal(counted.lookups(), lookups + 1);
  // Another address is charged on its own; without a connection nothing is charged.
  refused(() => auth.authenticate(bad[4]!, NS, { remoteAddress: '10.0.0.2' }));
  refused(() => auth.authenticate(bad[4]!, NS));
  // An IPv4-mapped spelling is the same address.
  rateLimited(() => auth.authenticate(bad[4]!, NS, { remoteAddress: '::ffff:10.0.0.1' }));
  now += 20_000;
  refused(() => auth.authenticate(bad[4]!, NS, from()));
});

test('a connection refused for its failures gets 429 without verification until its address regains one', async () => {
  let now = Date.now();
  const counted = countingLookups();
  const auth = new TokenAuthenticator(counted.store, () => now, { failureRate: FAILURES });
  const failing = { remoteAddress: '10.0.0.3' };
  const bad = await Promise.all([31, 32, 33, 34, 35].map(async (n) => tampered(await token(n))));
  for (const t of bad.slice(0, 3)) refused(() => auth.authenticate(t, NS, failing));
  rateLimited(() => auth.authenticate(bad[3]!, NS, failing));
  // What it sent behind (pipelined) costs no verification, a valid token included: the
  // answer before closes this connection.
  const lookups = counted.lookups();
  const valid = await token(36);
  rateLimited(() => auth.authenticate(bad[4]!, NS, failing));
  rateLimited(() => auth.authenticate(valid, NS, failing));
  assert.equal(counted.lookups(), lookups);
  // The same token on another connection from that address passes.
  assert.equal(auth.authenticate(valid, NS, { remoteAddress: '10.0.0.3' }).account.id, accountId);
  now += 20_000;
  assert.equal(auth.authenticate(valid, NS, failing).account.id, accountId);
});

test('out of failures, only tokens that need a signature check wait for a turn', async () => {
  // Still until the burst is spent (a 100 ms stall in it would refill a turn), then real time,
  // on which the waiting turn comes.
  let stopped: number | undefined = Date.now();
  const auth = new TokenAuthenticator(store, () => stopped ?? Date.now(), {
    failureRate: FAILURES,
  });
  const from = () => Object.assign(new EventEmitter(), { remoteAddress: '10.0.0.4' });
  const bad = await Promise.all([41, 42, 43].map(async (n) => tampered(await token(n))));
  const valid = await token(44);
  const unseen = await Promise.all(
    Array.from({ length: TURNS_PER_SECOND + 1 }, (_, i) => token(100 + i)),
  );
  // With failures left, nothing waits, and no turn is spent.
  assert.equal(auth.turnToVerify(unseen[0]!, NS, from()), null);
  assert.equal(auth.authenticate(valid, NS, from()).account.id, accountId);
  for (const t of bad) refused(() => auth.authenticate(t, NS, from()));
  // Out of failures: cheap ones never wait (remembered, malformed, unknown key, expired).
  const stranger = createMemorySigner('ed25519', 'stranger@host');
  const cheap = [
    valid,
    bad[0]!,
    'svc0.bm90.dG9rZW4',
    await mintSvc0('{"exp":4000000000}', stranger, NS),
    await mintSvc0('{"exp":946684800}', signer, NS),
  ];
  for (const t of cheap) assert.equal(auth.turnToVerify(t, NS, from()), null, t.slice(0, 40));
  // A token that needs its signature checked takes a turn: a burst, then it waits.
  for (const t of unseen.slice(0, TURNS_PER_SECOND)) {
    assert.equal(auth.turnToVerify(t, NS, from()), null);
  }
  const connection = from();
  const turn = auth.turnToVerify(unseen[TURNS_PER_SECOND]!, NS, connection);
  assert.ok(turn instanceof Promise);
  stopped = undefined;
  await turn;
  // At its turn, a valid token passes whatever the address failed.
  const caller = auth.authenticate(unseen[TURNS_PER_SECOND]!, NS, connection);
  assert.equal(caller.account.id, accountId);
});
