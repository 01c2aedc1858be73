import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { SshKeyRecord, Svc1Request } from '../../../../src/service/store/index.js';
import { T0, fakeKey, openFixture, type StoreFixture } from '../../../helpers/store.js';

let f: StoreFixture;
let key: SshKeyRecord;
let otherKey: SshKeyRecord;
let handles: string[];
before(async () => {
  f = await openFixture();
  const ada = f.store.createAccount('ada@x.io');
  key = f.store.addKey(fakeKey(ada.id, 'laptop'));
  otherKey = f.store.addKey(fakeKey(ada.id, 'desktop'));
});
after(() => f.cleanup());

const PAYLOAD = '{"exp":1900000000,"cmds":["whoami"]}';
let counter = 0;
/** A request whose newHandle hands out distinct handles and records each call. */
function request(overrides: Partial<Svc1Request> = {}): Svc1Request {
  return {
    fingerprint: key.fingerprint,
    namespace: 'v0@localhost',
    payload: Buffer.from(PAYLOAD),
    svc0: 'svc0.payload.signature-1',
    exp: 1900000000,
    newHandle: () => {
      const handle = `svc1.${String(++counter).padStart(26, 'A')}`;
      handles.push(handle);
      return handle;
    },
    ...overrides,
  };
}

test('the first request creates a handle for the svc0, and findSvc1 finds it', () => {
  handles = [];
  const record = f.store.findOrCreateSvc1(request());
  assert.deepEqual(record, {
    handle: handles[0],
    svc0: 'svc0.payload.signature-1',
    fingerprint: key.fingerprint,
    namespace: 'v0@localhost',
    payloadHash: createHash('sha256').update(PAYLOAD).digest('hex'),
    exp: 1900000000,
    createdAt: T0,
  });
  assert.deepEqual(f.store.findSvc1(record.handle), record);
  assert.equal(f.store.findSvc1('svc1.AAAAAAAAAAAAAAAAAAAAAAAAAA'), undefined);
});

test('the same key, namespace and payload give the same handle, even with another signature', () => {
  handles = [];
  const first = f.store.findSvc1(`svc1.${'1'.padStart(26, 'A')}`)!;
  const again = f.store.findOrCreateSvc1(
    request({ svc0: 'svc0.payload.a-different-ecdsa-signature' }),
  );
  assert.deepEqual(again, first);
  assert.deepEqual(handles, [], 'newHandle must not be called');
});

test('a different key, namespace or payload gives a different handle', () => {
  const variants: [string, Partial<Svc1Request>][] = [
    ['key', { fingerprint: otherKey.fingerprint }],
    ['namespace', { namespace: 'v0@web.localhost' }],
    ['payload', { payload: Buffer.from(PAYLOAD.replace('whoami', 'ls')) }],
    ['payload bytes (one more space)', { payload: Buffer.from(PAYLOAD.replace(':', ': ')) }],
  ];
  const seen = new Set([`svc1.${'1'.padStart(26, 'A')}`]);
  for (const [what, change] of variants) {
    handles = [];
    const record = f.store.findOrCreateSvc1(request(change));
    assert.deepEqual([record.handle], handles, what);
    assert.ok(!seen.has(record.handle), what);
    seen.add(record.handle);
  }
});

test('a svc0 without exp is stored with exp null', () => {
  const record = f.store.findOrCreateSvc1(request({ payload: Buffer.from('{}'), exp: null }));
  assert.equal(f.store.findSvc1(record.handle)?.exp, null);
});

test('refuses a key that is not registered', () => {
  assert.throws(() => f.store.findOrCreateSvc1(request({ fingerprint: 'SHA256:gone' })), {
    kind: 'not_found',
    message: 'ssh key SHA256:gone not found',
  });
});
